//! A small schema using every kind of field the macros support (the formats' schemas use only
//! some of them), for the tests of the macros and the verifier (`tests/schema_kinds.rs`).
//!
//! Views are built only by this crate, over bytes it verified, so a schema declared outside
//! cannot be read; this one lives here, and [`parse`] is its one way in.
#![allow(missing_docs)]

use crate::container::verified_root;
use crate::verify::Options;
use crate::Error;

crate::fb_enum! { Color: i8 { RED = 0, GREEN = 1, BLUE = 2 } }
crate::fb_struct! { Vec3 (size = 12, align = 4) { x "x" @0: scalar(f32), y "y" @4: scalar(f32), z "z" @8: scalar(f32) } }
crate::fb_struct! { Pair (size = 16, align = 8) { id "id" @0: enumeration(Color, i8), value "value" @8: scalar(u64) } }
crate::fb_struct! { Triple (size = 12, align = 4) { v "v" @0: array(i32, 3) } }
crate::fb_table! { Leaf = 0 { name "name" @0 NAME_SLOT NAME_NAME: string() required, v "v" @1 V_SLOT V_NAME: scalar(u32, 7) } }
crate::fb_union! { Any = 0 { 1 => Leaf, 2 => Node } }
crate::fb_table! {
    Node = 1 {
        color "color" @0 COLOR_SLOT COLOR_NAME: enumeration(Color, i8, 1),
        pos "pos" @1 POS_SLOT POS_NAME: structure(Vec3),
        pairs "pairs" @2 PAIRS_SLOT PAIRS_NAME: struct_vector(Pair),
        tags "tags" @3 TAGS_SLOT TAGS_NAME: string_vector(),
        any "any" @5 ANY_SLOT ANY_NAME: union(Any, any_type),
        anys "anys" @7 ANYS_SLOT ANYS_NAME: union_vector(Any),
        kids "kids" @8 KIDS_SLOT KIDS_NAME: table_vector(Leaf),
        big "big" @9 BIG_SLOT BIG_NAME: scalar(u64, 0),
    }
}
crate::fb_schema! { namespace "sample", identifier Some(*b"NODE"), root Node, tables [Leaf, Node], unions [Any] }

/// Verifies `bytes` as a buffer whose root is a [`Node`] (identifier `NODE`) and returns its
/// view.
pub fn parse<'a>(bytes: &'a [u8], options: &Options) -> Result<Node<'a>, Error> {
    verified_root::<Node<'a>>(bytes, SCHEMA.identifier, options, 0).map(|(node, _)| node)
}
