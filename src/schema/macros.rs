//! The schema macros. Each generated `generated.rs` describes every type of its schema once;
//! these macros expand that one description into the typed view, the verifier's layout (each
//! table's fields as numbers, gathered by `fb_schema!` into the schema's
//! [`crate::verify::SchemaLayout`], which the one interpreter walks) and the static descriptor
//! (which drives the JSON dump), so the three cannot drift. They are exported for
//! `crate::` paths but expand only inside this crate: the views they define are built with the
//! crate-private `wire::Seal`, so only this crate's verified roots lead to them.
//!
//! Input grammar (written by the generator in `codegen/`, never by hand):
//!
//! ```text
//! fb_enum!   { #[doc]* Name: repr { VARIANT = value, ... } }            (repr: u8 i8 ... u64)
//! fb_union!  { #[doc]* Name = id { tag => Table, tag => Alias: Table, ... } }
//! fb_struct! { #[doc]* Name (size = N, align = A) { field "name" @offset: kind(args), ... } }
//! fb_table!  { #[doc]* Name = id { #[doc]* field "name" @slot FIELD_SLOT FIELD_NAME: kind(args) [required|deprecated], ... } }
//! fb_schema! { namespace "ns", identifier Some(*b"ABCD"), root Table, tables [T0, T1, ...], unions [U0, ...] }
//! ```
//!
//! Table field kinds: `scalar(T, default)`, `enumeration(E, repr, default)`, `string()`,
//! `table(T)`, `structure(S)`, `vector(T)` (scalars and enums), `enum_vector(E)`,
//! `string_vector()`, `table_vector(T)`, `struct_vector(S)`, `union(U, type_accessor)`,
//! `union_vector(U)`.
//! A field kind may be followed by
//! `required` or `deprecated`: deprecated fields get no accessor but are still verified and
//! dumped when present, as flatc does. Struct field kinds: `scalar(T)`, `enumeration(E, repr)`, `structure(S)`,
//! `array(T, N)`.
//!
//! Each table field also names two associated constants of the view, `FIELD_SLOT` (its vtable
//! slot, a `u16`) and `FIELD_NAME` (its name in the schema, a `&'static str`); the generator
//! writes them as the field's name in upper snake case with `_SLOT` and `_NAME` appended
//! (`QuantizationParameters::DETAILS_SLOT`, `SubGraph::OPERATORS_NAME`), so that code reading a
//! field by slot, or naming one in an error, takes both from the schema. Constants cost no
//! flash unless they are used.

/// The version of the macro input grammar; generated files assert it, so a generator/macro
/// mismatch is a compile error.
pub const GRAMMAR_VERSION: u32 = 6;

/// Defines an enum: a transparent newtype over its underlying integer, so values this schema
/// revision does not name stay readable as raw numbers.
#[macro_export]
#[doc(hidden)]
macro_rules! fb_enum {
    ($(#[$meta:meta])* $name:ident : $repr:ident { $($(#[$vmeta:meta])* $variant:ident = $value:literal),* $(,)? }) => {
        $(#[$meta])*
        #[doc = concat!("\n\nEnum `", stringify!($name), "`; values a newer schema adds read as raw numbers.")]
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(pub $repr);

        #[allow(non_upper_case_globals)]
        impl $name {
            $(
                $(#[$vmeta])*
                #[doc = concat!("`", stringify!($variant), " = ", stringify!($value), "`")]
                pub const $variant: $name = $name($value);
            )*

            /// The value's name in the schema, or `::core::option::Option::None` for a value it does not name.
            pub const fn name(self) -> ::core::option::Option<&'static str> {
                match self.0 {
                    $($value => ::core::option::Option::Some(stringify!($variant)),)*
                    #[allow(unreachable_patterns)]
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    ::core::option::Option::Some(n) => f.write_str(n),
                    ::core::option::Option::None => write!(f, "{}({})", stringify!($name), self.0),
                }
            }
        }

        impl $crate::wire::Scalar for $name {
            type Wire = <$repr as $crate::wire::Scalar>::Wire;
            const SIZE: usize = <$repr as $crate::wire::Scalar>::SIZE;
            #[inline(always)]
            fn from_wire(wire: Self::Wire) -> Self {
                $name(<$repr as $crate::wire::Scalar>::from_wire(wire))
            }
        }

        impl $crate::schema::EnumType for $name {
            // Compile time: a value past `i64::MAX` (a `ulong` enum's) keeps its bits.
            #[allow(clippy::as_conversions)]
            const DESC: &'static $crate::schema::EnumDesc = &$crate::schema::EnumDesc {
                name: stringify!($name),
                repr: $crate::__fb_scalar_type!($repr),
                values: &[$(($value as i64, stringify!($variant))),*],
                bit_flags: false,
            };
        }
    };
}

/// The table type of a union member: `$variant` itself, or the table an aliased member
/// (`XNNAdd: _XNNNode2x1`) names.
#[macro_export]
#[doc(hidden)]
macro_rules! fb_union_member_type {
    ($lt:lifetime; $variant:ident) => { $variant<$lt> };
    ($lt:lifetime; $variant:ident : $ty:ident) => { $ty<$lt> };
}

/// `UnionMember` for a member named after its table; an aliased member gets none, as one
/// table may be several members of a union.
#[macro_export]
#[doc(hidden)]
macro_rules! fb_union_member_tag {
    ($name:ident; $tag:literal; $variant:ident) => {
        impl<'a> $crate::wire::UnionMember<'a, $name<'a>> for $variant<'a> {
            const TAG: u8 = $tag;
        }
    };
    ($name:ident; $tag:literal; $variant:ident : $ty:ident) => {};
}

/// Defines a union: an enum of its member tables, `NONE`, and `Unknown(tag)` for members a
/// newer schema adds. A member `tag => Alias: Table` is the variant `Alias` holding a `Table`.
#[macro_export]
#[doc(hidden)]
macro_rules! fb_union {
    ($(#[$meta:meta])* $name:ident = $id:literal { $($tag:literal => $variant:ident $(: $ty:ident)?),* $(,)? }) => {
        $(#[$meta])*
        #[doc = concat!("\n\nUnion `", stringify!($name), "`.")]
        #[derive(Clone, Copy, Debug)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        pub enum $name<'a> {
            /// No value (type 0).
            NONE,
            $(
                #[doc = concat!("Type ", stringify!($tag), ": `", stringify!($variant), "`.")]
                $variant($crate::fb_union_member_type!('a; $variant $(: $ty)?)),
            )*
            /// A type this schema revision does not name: its raw tag.
            Unknown(u8),
        }

        impl<'a> $name<'a> {
            /// The union's type tag.
            pub fn tag(&self) -> u8 {
                match self {
                    $name::NONE => 0,
                    $($name::$variant(_) => $tag,)*
                    $name::Unknown(t) => *t,
                }
            }

            /// The name of the member held, if this schema revision names it.
            pub fn type_name(&self) -> ::core::option::Option<&'static str> {
                match self {
                    $name::NONE => ::core::option::Option::Some("NONE"),
                    $($name::$variant(_) => ::core::option::Option::Some(stringify!($variant)),)*
                    $name::Unknown(_) => ::core::option::Option::None,
                }
            }
        }

        impl<'a> $crate::wire::FromUnion<'a> for $name<'a> {
            fn from_union(tag: u8, value: $crate::wire::UnionValue<'a>, _: $crate::wire::Seal) -> Self {
                // Only the types this schema names are looked inside; their table is found
                // once, before the match that wraps it (one small arm per member). The named
                // tags are a bit set rather than a match, which the compiler would merge into
                // the one below, finding the table again in every arm.
                const NAMED: [u8; 32] = {
                    #[allow(unused_mut)] // unions without members
                    let mut bits = [0u8; 32];
                    $(bits[$tag / 8] |= 1 << ($tag % 8);)*
                    bits
                };
                let named = NAMED.get(usize::from(tag / 8)).is_some_and(|b| b >> (tag % 8) & 1 != 0);
                if tag == 0 || !named {
                    return if tag == 0 { $name::NONE } else { $name::Unknown(tag) };
                }
                let ::core::option::Option::Some(t) = value.table::<$crate::wire::Table<'a>>() else {
                    return $crate::wire::broken($name::NONE);
                };
                match tag {
                    $($tag => $name::$variant($crate::wire::FromTable::from_table(t, $crate::wire::Seal)),)*
                    other => $name::Unknown(other),
                }
            }
        }

        $($crate::fb_union_member_tag!($name; $tag; $variant $(: $ty)?);)*

        impl $crate::verify::VerifyUnion for $name<'_> {
            const ID: u16 = $id;
            const MEMBERS: &'static [(u8, u16)] =
                &[$(($tag, <$crate::fb_union_member_type!('static; $variant $(: $ty)?) as $crate::verify::VerifyTable>::ID)),*];
        }

        const _: () = {
            static DESC: $crate::schema::UnionDesc = $crate::schema::UnionDesc {
                name: stringify!($name),
                variants: &[$((
                    $tag,
                    stringify!($variant),
                    <$crate::fb_union_member_type!('static; $variant $(: $ty)?) as $crate::schema::TableType>::desc,
                )),*],
            };
            impl $crate::schema::UnionType for $name<'_> {
                fn desc() -> &'static $crate::schema::UnionDesc {
                    &DESC
                }
            }
        };

        impl $crate::schema::Walk for $name<'_> {
            fn walk(&self, w: &mut $crate::schema::Walker) {
                match self {
                    $name::NONE => {}
                    $($name::$variant(t) => t.walk(w),)*
                    $name::Unknown(tag) => w.scalar(*tag),
                }
            }
        }
    };
}

/// Defines a struct view over its inline bytes.
#[macro_export]
#[doc(hidden)]
macro_rules! fb_struct {
    ($(#[$meta:meta])* $name:ident (size = $size:literal, align = $align:literal) {
        $($(#[$fmeta:meta])* $field:ident $fname:literal @ $offset:literal : $kind:ident ($($arg:tt)*)),* $(,)?
    }) => {
        $(#[$meta])*
        #[doc = concat!("\n\nStruct `", stringify!($name), "`, viewed in place.")]
        #[derive(Clone, Copy, Debug)]
        pub struct $name<'a> {
            bytes: &'a [u8],
        }

        impl<'a> $crate::wire::FromStruct<'a> for $name<'a> {
            const SIZE: usize = $size;
            const ALIGN: usize = $align;
            #[inline(always)]
            fn from_bytes(bytes: &'a [u8], _: $crate::wire::Seal) -> Self {
                $name { bytes }
            }
        }

        impl<'a> $name<'a> {
            /// The struct's bytes as they lie in the buffer.
            pub fn bytes(&self) -> &'a [u8] {
                self.bytes
            }
            $($crate::__fb_struct_field!(accessor 'a; $(#[$fmeta])* $field $fname $offset $kind($($arg)*));)*
        }

        const _: () = {
            static DESC: $crate::schema::StructDesc = $crate::schema::StructDesc {
                name: stringify!($name),
                size: $size,
                align: $align,
                fields: &[$($crate::schema::StructFieldDesc {
                    name: $fname,
                    offset: $offset,
                    kind: $crate::__fb_struct_field!(kind; $kind($($arg)*)),
                }),*],
            };
            impl $crate::schema::StructType for $name<'_> {
                const DESC: &'static $crate::schema::StructDesc = &DESC;
            }
        };

        impl $crate::schema::Walk for $name<'_> {
            fn walk(&self, w: &mut $crate::schema::Walker) {
                w.bytes(self.bytes);
            }
        }
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! __fb_struct_field {
    (accessor $lt:lifetime; $(#[$fmeta:meta])* $field:ident $fname:literal $offset:literal scalar($t:ident)) => {
        $(#[$fmeta])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> $t {
            $crate::wire::read_scalar::<$t>(self.bytes, $offset).unwrap_or_else(|| $crate::wire::broken(<$t>::default()))
        }
    };
    (accessor $lt:lifetime; $(#[$fmeta:meta])* $field:ident $fname:literal $offset:literal enumeration($e:ident, $repr:ident)) => {
        $(#[$fmeta])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> $e {
            $crate::wire::read_scalar::<$e>(self.bytes, $offset).unwrap_or_else(|| $crate::wire::broken($e(0)))
        }
    };
    (accessor $lt:lifetime; $(#[$fmeta:meta])* $field:ident $fname:literal $offset:literal structure($s:ident)) => {
        $(#[$fmeta])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> $s<$lt> {
            let size = <$s<$lt> as $crate::wire::FromStruct<$lt>>::SIZE;
            let bytes = self.bytes.get($offset..).and_then(|b| b.get(..size)).unwrap_or_else(|| $crate::wire::broken(&[]));
            <$s<$lt> as $crate::wire::FromStruct<$lt>>::from_bytes(bytes, $crate::wire::Seal)
        }
    };
    (accessor $lt:lifetime; $(#[$fmeta:meta])* $field:ident $fname:literal $offset:literal array($t:ident, $n:literal)) => {
        $(#[$fmeta])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> $crate::wire::Vector<$lt, $t> {
            let size = <$t as $crate::wire::Scalar>::SIZE * $n;
            let bytes = self.bytes.get($offset..).and_then(|b| b.get(..size)).unwrap_or(&[]);
            $crate::wire::Vector::from_bytes(bytes).unwrap_or_else(|| $crate::wire::broken($crate::wire::Vector::empty()))
        }
    };
    (kind; scalar($t:ident)) => { $crate::schema::StructFieldKind::Scalar($crate::__fb_scalar_type!($t)) };
    (kind; enumeration($e:ident, $repr:ident)) => {
        $crate::schema::StructFieldKind::Enum(<$e as $crate::schema::EnumType>::DESC)
    };
    (kind; structure($s:ident)) => {
        $crate::schema::StructFieldKind::Struct(<$s<'static> as $crate::schema::StructType>::DESC)
    };
    (kind; array($t:ident, $n:literal)) => { $crate::schema::StructFieldKind::Array($crate::__fb_scalar_type!($t), $n) };
}

/// Defines a table: its view, its verifier and its descriptor, from one field list.
#[macro_export]
#[doc(hidden)]
macro_rules! fb_table {
    ($(#[$meta:meta])* $name:ident = $id:literal {
        $($(#[$fmeta:meta])* $field:ident $fname:literal @ $slot:literal $slot_const:ident $name_const:ident
            : $kind:ident ($($arg:tt)*) $($req:ident)?),* $(,)?
    }) => {
        $(#[$meta])*
        #[doc = concat!("\n\nTable `", stringify!($name), "`, viewed in place over verified bytes.")]
        #[derive(Clone, Copy)]
        pub struct $name<'a> {
            table: $crate::wire::Table<'a>,
        }

        impl<'a> $crate::wire::FromTable<'a> for $name<'a> {
            #[inline(always)]
            fn from_table(table: $crate::wire::Table<'a>, _: $crate::wire::Seal) -> Self {
                $name { table }
            }

            #[inline(always)]
            fn as_table(&self) -> $crate::wire::Table<'a> {
                self.table
            }
        }

        impl<'a> $name<'a> {
            /// The underlying table (for raw slot access).
            pub fn raw(&self) -> $crate::wire::Table<'a> {
                self.table
            }
            $($crate::__fb_field!(accessor 'a; $(#[$fmeta])* $field $fname $slot $kind($($arg)*) $($req)?);)*
            $(
                #[doc = concat!("The vtable slot of field `", $fname, "` (of a union, its value's; its type tag is in the slot before).")]
                pub const $slot_const: u16 = $slot;
                #[doc = concat!("The name of field `", $fname, "` in the schema.")]
                pub const $name_const: &'static str = $fname;
            )*
        }

        impl $crate::verify::VerifyTable for $name<'_> {
            const NAME: $crate::verify::Name = {
                static NAME: &str = stringify!($name);
                &NAME
            };
            const ID: u16 = $id;
            const SCHEMA_HAS_UNIONS: bool = __FB_HAS_UNIONS;
            const DECLARED: &'static [$crate::verify::FieldLayout] = &[
                $($crate::__fb_field!(layout $slot, $crate::__fb_field!(required; $($req)?); $kind($($arg)*))),*
            ];
            // Inline fields first, then offset fields (`SchemaLayout::fields`), names alike.
            const FIELDS: &'static [$crate::verify::FieldLayout] = {
                use $crate::verify::layout::build;
                const RAW: &[$crate::verify::FieldLayout] = <$name<'static> as $crate::verify::VerifyTable>::DECLARED;
                const ORDER: [usize; RAW.len()] = build::inline_first(RAW);
                const SORTED: [$crate::verify::FieldLayout; RAW.len()] = build::permute(RAW, &ORDER, build::EMPTY_FIELD);
                &SORTED
            };
            const FIELD_NAMES: &'static [&'static str] = {
                use $crate::verify::layout::build;
                const RAW: &[$crate::verify::FieldLayout] = <$name<'static> as $crate::verify::VerifyTable>::DECLARED;
                const ORDER: [usize; RAW.len()] = build::inline_first(RAW);
                const SORTED: [&str; RAW.len()] = build::permute(&[$($fname),*], &ORDER, "");
                &SORTED
            };
            fn schema() -> &'static $crate::verify::SchemaLayout<'static> {
                &__FB_LAYOUT
            }

            #[cfg(feature = "specialize")]
            #[inline(never)]
            fn verify_specialized(v: &mut $crate::verify::Verifier<'_>, pos: usize) -> $crate::verify::VResult {
                v.interpret_with(&__FB_LAYOUT, $id, pos, |_v, _t, _first| {
                    $({
                        const F: $crate::verify::FieldLayout =
                            $crate::__fb_field!(layout $slot, $crate::__fb_field!(required; $($req)?); $kind($($arg)*));
                        const AT: usize = $crate::verify::layout::build::position_of(
                            <$name<'static> as $crate::verify::VerifyTable>::FIELDS, F.slot());
                        const E: ::core::option::Option<$crate::verify::TableEntry> = $crate::__fb_field!(entry; $kind($($arg)*));
                        _v.step::<true>(&__FB_LAYOUT, _t, F, _first.wrapping_add(AT), E)?;
                    })*
                    ::core::result::Result::Ok(())
                })
            }
        }

        const _: () = {
            static DESC: $crate::schema::TableDesc = $crate::schema::TableDesc {
                name: stringify!($name),
                fields: &[$($crate::schema::FieldDesc {
                    name: $fname,
                    slot: $slot,
                    kind: $crate::__fb_field!(kind; $kind($($arg)*)),
                    required: $crate::__fb_field!(required; $($req)?),
                    deprecated: $crate::__fb_field!(deprecated; $($req)?),
                }),*],
            };
            impl $crate::schema::TableType for $name<'_> {
                fn desc() -> &'static $crate::schema::TableDesc {
                    &DESC
                }
            }
        };

        impl $crate::schema::Walk for $name<'_> {
            fn walk(&self, w: &mut $crate::schema::Walker) {
                let pos = self.table.position();
                if !w.enter_table(pos) {
                    return;
                }
                $($crate::__fb_field!(walk w, pos; self.$field(); $kind($($arg)*) $($req)?);)*
            }
        }

        impl ::core::fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}@{}", stringify!($name), self.table.position())
            }
        }
    };
}

/// Defines the schema's static description (`SCHEMA`) and ties its root type to it, and the
/// verifier's [`crate::verify::SchemaLayout`] built from its tables and unions (listed in index
/// order, which a compile-time check confirms).
#[macro_export]
#[doc(hidden)]
macro_rules! fb_schema {
    (namespace $ns:literal, identifier $ident:expr, root $root:ident,
     tables [$($table:ident),* $(,)?], unions [$($union:ident),* $(,)?] $(,)?) => {
        /// The schema's description: namespace, identifier, root table.
        pub static SCHEMA: $crate::schema::SchemaDesc = $crate::schema::SchemaDesc {
            namespace: $ns,
            identifier: $ident,
            root: <$root<'static> as $crate::schema::TableType>::desc,
        };

        /// The schema's root table type.
        pub type Root<'a> = $root<'a>;

        /// Whether a table of the schema has a union or union-vector field (the verifier
        /// leaves out its union checks where none has).
        const __FB_HAS_UNIONS: bool = $crate::verify::layout::build::any_union(&[
            $(<$table<'static> as $crate::verify::VerifyTable>::FIELDS),*
        ]);

        static __FB_LAYOUT: $crate::verify::SchemaLayout<'static> = {
            use $crate::verify::layout::build;
            use $crate::verify::{FieldLayout, Span, VerifyTable};
            const TABLES: &[&[FieldLayout]] = &[$(<$table<'static> as VerifyTable>::FIELDS),*];
                        #[allow(clippy::indexing_slicing, clippy::as_conversions)] // compile time: a panic is a build error
            const _: () = {
                let ids: &[u16] = &[$(<$table<'static> as VerifyTable>::ID),*];
                let mut i = 0;
                while i < ids.len() {
                    assert!(ids[i] as usize == i, "tables listed out of index order");
                    i += 1;
                }
                let ids: &[u16] = &[$(<$union<'static> as $crate::verify::VerifyUnion>::ID),*];
                let mut i = 0;
                while i < ids.len() {
                    assert!(ids[i] as usize == i, "unions listed out of index order");
                    i += 1;
                }
            };
            const FIELD_COUNT: usize = build::total(TABLES);
            static FIELDS: [FieldLayout; FIELD_COUNT] = build::concat(TABLES, build::EMPTY_FIELD);
            static SPANS: [$crate::verify::TableSpan; TABLES.len()] = build::table_spans(TABLES);
            #[cfg(not(feature = "numeric-paths"))]
            static FIELD_NAMES: $crate::verify::FieldNames = {
                const NAMES: &[&[&str]] = &[$(<$table<'static> as VerifyTable>::FIELD_NAMES),*];
                const PACKED: ([u8; build::packed_len(NAMES)], [u8; FIELD_COUNT]) = build::pack(NAMES);
                $crate::verify::FieldNames { text: build::text(&PACKED.0), ids: &PACKED.1 }
            };
            #[cfg(feature = "numeric-paths")]
            static FIELD_NAMES: $crate::verify::FieldNames = $crate::verify::FieldNames::NONE;
            const DENSE: &[&[u8]] = &[$({
                const MEMBERS: &[(u8, u16)] = <$union<'static> as $crate::verify::VerifyUnion>::MEMBERS;
                const DENSE: [u8; build::max_tag(MEMBERS)] = build::members(MEMBERS);
                &DENSE
            }),*];
            static MEMBERS: [u8; build::total(DENSE)] = build::concat(DENSE, 0);
            static UNION_SPANS: [Span; DENSE.len()] = build::spans(DENSE);
            // With `specialize`, each table type gets the interpreter inlined with its layout
            // as constants (one dispatch by table index), trading flash for speed.
            #[cfg(feature = "specialize")]
            fn specialized(v: &mut $crate::verify::Verifier<'_>, table: u16, pos: usize) -> $crate::verify::VResult {
                type Entry = for<'v, 'b> fn(&'v mut $crate::verify::Verifier<'b>, usize) -> $crate::verify::VResult;
                static ENTRIES: &[Entry] = &[$(<$table<'static> as VerifyTable>::verify_specialized),*];
                match ENTRIES.get(usize::from(table)) {
                    ::core::option::Option::Some(entry) => entry(v, pos),
                    ::core::option::Option::None => v.interpret::<true>(&__FB_LAYOUT, table, pos),
                }
            }
            $crate::verify::SchemaLayout {
                tables: &SPANS,
                fields: &FIELDS,
                unions: &UNION_SPANS,
                members: &MEMBERS,
                #[cfg(feature = "alloc")]
                union_structs: &[],
                #[cfg(feature = "alloc")]
                slot_tables: &[],
                #[cfg(feature = "alloc")]
                slot_checks: &[],
                names: &FIELD_NAMES,
                #[cfg(feature = "specialize")]
                specialized: ::core::option::Option::Some(specialized),
                #[cfg(not(feature = "specialize"))]
                specialized: ::core::option::Option::None,
            }
        };
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! __fb_scalar_type {
    (bool) => {
        $crate::schema::ScalarType::Bool
    };
    (u8) => {
        $crate::schema::ScalarType::U8
    };
    (i8) => {
        $crate::schema::ScalarType::I8
    };
    (u16) => {
        $crate::schema::ScalarType::U16
    };
    (i16) => {
        $crate::schema::ScalarType::I16
    };
    (u32) => {
        $crate::schema::ScalarType::U32
    };
    (i32) => {
        $crate::schema::ScalarType::I32
    };
    (u64) => {
        $crate::schema::ScalarType::U64
    };
    (i64) => {
        $crate::schema::ScalarType::I64
    };
    (f32) => {
        $crate::schema::ScalarType::F32
    };
    (f64) => {
        $crate::schema::ScalarType::F64
    };
}

#[macro_export]
#[doc(hidden)]
macro_rules! __fb_field {
    // ---- accessors -------------------------------------------------------------------------
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal $kind:ident($($arg:tt)*) deprecated) => {};
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal scalar($t:ident, $default:expr)) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "` (default `", stringify!($default), "`).")]
        #[inline]
        pub fn $field(&self) -> $t {
            self.table.scalar::<$t>($slot, $default)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal enumeration($e:ident, $repr:ident, $default:expr)) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "` (default `", stringify!($default), "`).")]
        #[inline]
        pub fn $field(&self) -> $e {
            self.table.scalar::<$e>($slot, $e($default))
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal string()) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<&$lt str> {
            self.table.string($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal string() required) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "` (required).")]
        #[inline]
        pub fn $field(&self) -> &$lt str {
            self.table.string($slot).unwrap_or_else(|| $crate::wire::broken(""))
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal table($t:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$t<$lt>> {
            self.table.table::<$t<$lt>>($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal structure($s:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$s<$lt>> {
            self.table.structure::<$s<$lt>>($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal vector($t:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`, a zero-copy slice.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$crate::wire::Vector<$lt, $t>> {
            self.table.vector::<$t>($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal enum_vector($e:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`, a zero-copy slice.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$crate::wire::Vector<$lt, $e>> {
            self.table.vector::<$e>($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal string_vector() $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$crate::wire::StrVector<$lt>> {
            self.table.string_vector($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal table_vector($t:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$crate::wire::TableVector<$lt, $t<$lt>>> {
            self.table.table_vector::<$t<$lt>>($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal struct_vector($s:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "`.")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$crate::wire::StructVector<$lt, $s<$lt>>> {
            self.table.struct_vector::<$s<$lt>>($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal union($u:ident, $ty:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "` (union; its type is in the slot before).")]
        #[inline]
        pub fn $field(&self) -> $u<$lt> {
            self.table.union::<$u<$lt>>($slot)
        }

        #[doc = concat!("The type tag of union field `", $fname, "` (0: none), without reading its value.")]
        #[inline]
        pub fn $ty(&self) -> u8 {
            self.table.union_tag($slot)
        }
    };
    (accessor $lt:lifetime; $(#[$m:meta])* $field:ident $fname:literal $slot:literal union_vector($u:ident) $($req:ident)?) => {
        $(#[$m])*
        #[doc = concat!("Field `", $fname, "` (vector of unions).")]
        #[inline]
        pub fn $field(&self) -> ::core::option::Option<$crate::wire::UnionVector<$lt, $u<$lt>>> {
            self.table.union_vector::<$u<$lt>>($slot)
        }
    };

    // ---- specialized verifiers of table fields' targets (`specialize`) ----------------------
    (entry; table($t:ident)) => {
        ::core::option::Option::Some(<$t<'static> as $crate::verify::VerifyTable>::verify_specialized)
    };
    (entry; table_vector($t:ident)) => {
        ::core::option::Option::Some(<$t<'static> as $crate::verify::VerifyTable>::verify_specialized)
    };
    (entry; $kind:ident($($arg:tt)*)) => {
        ::core::option::Option::None
    };

    // ---- verifier layouts (slot, kind, size or index, alignment, required) -----------------
    (layout $slot:literal, $r:expr; scalar($ty:ident, $default:expr)) => {
        $crate::__fb_field!(inline $slot, $r; <$ty as $crate::wire::Scalar>::SIZE, <$ty as $crate::wire::Scalar>::SIZE)
    };
    (layout $slot:literal, $r:expr; enumeration($e:ident, $repr:ident, $default:expr)) => {
        $crate::__fb_field!(inline $slot, $r; <$repr as $crate::wire::Scalar>::SIZE, <$repr as $crate::wire::Scalar>::SIZE)
    };
    (layout $slot:literal, $r:expr; structure($s:ident)) => {
        $crate::__fb_field!(inline $slot, $r;
            <$s<'static> as $crate::wire::FromStruct<'static>>::SIZE,
            <$s<'static> as $crate::wire::FromStruct<'static>>::ALIGN)
    };
    (layout $slot:literal, $r:expr; string()) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::String, 0, 4, $r)
    };
    (layout $slot:literal, $r:expr; table($t:ident)) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::Table,
            <$t<'static> as $crate::verify::VerifyTable>::ID, 4, $r)
    };
    (layout $slot:literal, $r:expr; vector($t:ident)) => {
        $crate::__fb_field!(vector $slot, $r; <$t as $crate::wire::Scalar>::SIZE, <$t as $crate::wire::Scalar>::SIZE)
    };
    (layout $slot:literal, $r:expr; enum_vector($e:ident)) => {
        $crate::__fb_field!(vector $slot, $r; <$e as $crate::wire::Scalar>::SIZE, <$e as $crate::wire::Scalar>::SIZE)
    };
    (layout $slot:literal, $r:expr; struct_vector($s:ident)) => {
        $crate::__fb_field!(vector $slot, $r;
            <$s<'static> as $crate::wire::FromStruct<'static>>::SIZE,
            <$s<'static> as $crate::wire::FromStruct<'static>>::ALIGN)
    };
    (layout $slot:literal, $r:expr; string_vector()) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::StringVector, 0, 4, $r)
    };
    (layout $slot:literal, $r:expr; table_vector($t:ident)) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::TableVector,
            <$t<'static> as $crate::verify::VerifyTable>::ID, 4, $r)
    };
    (layout $slot:literal, $r:expr; union($u:ident, $uty:ident)) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::Union,
            <$u<'static> as $crate::verify::VerifyUnion>::ID, 4, $r)
    };
    (layout $slot:literal, $r:expr; union_vector($u:ident)) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::UnionVector,
            <$u<'static> as $crate::verify::VerifyUnion>::ID, 4, $r)
    };
    (inline $slot:literal, $r:expr; $size:expr, $align:expr) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::Inline,
            $crate::__fb_field!(u16 $size), $align, $r)
    };
    (vector $slot:literal, $r:expr; $size:expr, $align:expr) => {
        $crate::verify::FieldLayout::new($crate::__fb_field!(slot $slot), $crate::verify::FieldKind::Vector,
            $crate::__fb_field!(u16 $size), $align, $r)
    };
    (slot $slot:literal) => {{
        const { assert!($slot <= 255, "a vtable slot past 255") };
        #[allow(clippy::as_conversions)] // compile time, and asserted to fit just above
        let slot = $slot as u8;
        slot
    }};
    (u16 $size:expr) => {{
        const { assert!($size <= 0xffff, "an inline size past 65535 bytes") };
        #[allow(clippy::as_conversions)] // compile time, and asserted to fit just above
        let size = $size as u16;
        size
    }};

    // ---- descriptors -----------------------------------------------------------------------
    (kind; scalar($t:ident, $default:expr)) => { $crate::schema::FieldKind::Scalar($crate::schema::ScalarValue::$t($default)) };
    (kind; enumeration($e:ident, $repr:ident, $default:expr)) => {
        $crate::schema::FieldKind::Enum(<$e as $crate::schema::EnumType>::DESC, $crate::schema::ScalarValue::$repr($default))
    };
    (kind; string()) => { $crate::schema::FieldKind::String };
    (kind; table($t:ident)) => { $crate::schema::FieldKind::Table(<$t<'static> as $crate::schema::TableType>::desc) };
    (kind; structure($s:ident)) => { $crate::schema::FieldKind::Struct(<$s<'static> as $crate::schema::StructType>::DESC) };
    (kind; vector($t:ident)) => { $crate::schema::FieldKind::Vector($crate::__fb_scalar_type!($t)) };
    (kind; enum_vector($e:ident)) => { $crate::schema::FieldKind::EnumVector(<$e as $crate::schema::EnumType>::DESC) };
    (kind; string_vector()) => { $crate::schema::FieldKind::StringVector };
    (kind; table_vector($t:ident)) => { $crate::schema::FieldKind::TableVector(<$t<'static> as $crate::schema::TableType>::desc) };
    (kind; struct_vector($s:ident)) => { $crate::schema::FieldKind::StructVector(<$s<'static> as $crate::schema::StructType>::DESC) };
    (kind; union($u:ident, $uty:ident)) => { $crate::schema::FieldKind::Union(<$u<'static> as $crate::schema::UnionType>::desc) };
    (kind; union_vector($u:ident)) => { $crate::schema::FieldKind::UnionVector(<$u<'static> as $crate::schema::UnionType>::desc) };
    (required;) => { false };
    (required; required) => { true };
    (required; deprecated) => { false };
    (deprecated;) => { false };
    (deprecated; required) => { false };
    (deprecated; deprecated) => { true };

    // ---- full walk (`$pos`: the table's position, for where a budget runs out) ------------
    (walk $w:ident, $pos:ident; $e:expr; $kind:ident($($arg:tt)*) deprecated) => {};
    (walk $w:ident, $pos:ident; $e:expr; scalar($t:ident, $default:expr)) => { $w.scalar($e) };
    (walk $w:ident, $pos:ident; $e:expr; enumeration($ty:ident, $repr:ident, $default:expr)) => { $w.scalar($e.0) };
    (walk $w:ident, $pos:ident; $e:expr; string()) => { if let ::core::option::Option::Some(s) = $e { $w.string(s) } };
    (walk $w:ident, $pos:ident; $e:expr; string() required) => { $w.string($e) };
    (walk $w:ident, $pos:ident; $e:expr; table($t:ident) $($req:ident)?) => { if let ::core::option::Option::Some(t) = $e { $crate::schema::Walk::walk(&t, $w) } };
    (walk $w:ident, $pos:ident; $e:expr; structure($s:ident) $($req:ident)?) => { if let ::core::option::Option::Some(s) = $e { $crate::schema::Walk::walk(&s, $w) } };
    (walk $w:ident, $pos:ident; $e:expr; vector($t:ident) $($req:ident)?) => { if let ::core::option::Option::Some(v) = $e { $w.vector(v.len(), v.get(0)) } };
    (walk $w:ident, $pos:ident; $e:expr; enum_vector($t:ident) $($req:ident)?) => { if let ::core::option::Option::Some(v) = $e { $w.vector(v.len(), v.get(0).map(|x| x.0)) } };
    (walk $w:ident, $pos:ident; $e:expr; string_vector() $($req:ident)?) => {
        if let ::core::option::Option::Some(v) = $e { if $w.enter_offsets(v.len(), $pos) { for s in v.iter() { $w.string(s) } } }
    };
    (walk $w:ident, $pos:ident; $e:expr; table_vector($t:ident) $($req:ident)?) => {
        if let ::core::option::Option::Some(v) = $e { if $w.enter_offsets(v.len(), $pos) { for t in v.iter() { $crate::schema::Walk::walk(&t, $w) } } }
    };
    (walk $w:ident, $pos:ident; $e:expr; struct_vector($s:ident) $($req:ident)?) => { if let ::core::option::Option::Some(v) = $e { $w.vector(v.len(), v.bytes().first().copied()) } };
    (walk $w:ident, $pos:ident; $e:expr; union($u:ident, $uty:ident) $($req:ident)?) => { $crate::schema::Walk::walk(&$e, $w) };
    (walk $w:ident, $pos:ident; $e:expr; union_vector($u:ident) $($req:ident)?) => {
        if let ::core::option::Option::Some(v) = $e { if $w.enter_offsets(v.len(), $pos) { for u in v.iter() { $crate::schema::Walk::walk(&u, $w) } } }
    };
}
