//! Which subgraphs an operator calls: the control-flow options (`CALL`, `IF`, `WHILE`,
//! `CALL_ONCE` and the StableHLO ones) name them by index. TFLite and Circle 0.10 give these
//! options the same union tags and slots (tests check both schemas), so one table serves both.

use super::checker::path::{BUILTIN_OPTIONS_2, INNER, OPERATORS, OUTER, SUBGRAPHS};
use super::checker::Site;
use super::rules::CALLED_SUBGRAPH;
use crate::error::ErrorKind::IndexOutOfRange as RANGE;
use crate::tflite::{BuiltinOptions, BuiltinOptions2, CallOnceOptions, CallOptions, IfOptions, WhileOptions};
use crate::tflite::{StableHLOCompositeOptions, StablehloCaseOptions, StablehloCustomCallOptions};
use crate::tflite::{StablehloReduceOptions, StablehloReduceWindowOptions, StablehloScatterOptions};
use crate::tflite::{StablehloSortOptions, StablehloWhileOptions};
use crate::wire::{Table, UnionMember};

/// Where a called subgraph out of range in `Operator.builtin_options_2` is reported.
static CALLED_SUBGRAPH_2: Site = Site::new(RANGE, [SUBGRAPHS | OUTER, OPERATORS | INNER, BUILTIN_OPTIONS_2, 0]);

/// `Operator.builtin_options`' value slot (a test checks it against both schemas).
pub(crate) const OPTIONS: u16 = 4;

/// `Operator.builtin_options_2`' value slot (a test checks it against both schemas).
const OPTIONS_2: u16 = 12;

/// A field of a control-flow options table that holds subgraph indices.
struct Call {
    /// Whether the options are `builtin_options_2`'s (else `builtin_options`').
    second: bool,
    /// The options table's tag in its union.
    tag: u8,
    /// The field's slot in the options table.
    slot: u16,
    /// Whether the field is a vector of indices (else one `int`).
    vector: bool,
}

macro_rules! calls {
    ($($second:literal $union:ident $table:ident . $field:literal @ $slot:literal $($vector:ident)?;)*) => {
        /// The fields of the control-flow options that call subgraphs, in the order they are
        /// reported.
        static CALLS: [Call; [$($slot),*].len()] = CALLS_TABLE;

        /// [`CALLS`], for the tables made from it at compile time.
        const CALLS_TABLE: [Call; [$($slot),*].len()] = [$(Call {
            second: $second,
            tag: <$table<'static> as UnionMember<'static, $union<'static>>>::TAG,
            slot: $slot,
            vector: calls!(@vector $($vector)?),
        }),*];

        /// The union, table and field name of each of [`CALLS`], to check them against a schema.
        #[cfg(test)]
        const CALL_FIELDS: [(bool, &str, &str); [$($slot),*].len()] = [$(($second, stringify!($table), $field)),*];
    };
    (@vector vector) => { true };
    (@vector) => { false };
}

calls! {
    false BuiltinOptions CallOptions."subgraph" @0;
    false BuiltinOptions IfOptions."then_subgraph_index" @0;
    false BuiltinOptions IfOptions."else_subgraph_index" @1;
    false BuiltinOptions WhileOptions."cond_subgraph_index" @0;
    false BuiltinOptions WhileOptions."body_subgraph_index" @1;
    false BuiltinOptions CallOnceOptions."init_subgraph_index" @0;
    true BuiltinOptions2 StablehloWhileOptions."cond_subgraph_index" @0;
    true BuiltinOptions2 StablehloWhileOptions."body_subgraph_index" @1;
    true BuiltinOptions2 StablehloSortOptions."comparator_subgraph_index" @2;
    true BuiltinOptions2 StablehloReduceOptions."body_subgraph_index" @1;
    true BuiltinOptions2 StablehloReduceWindowOptions."body_subgraph_index" @5;
    true BuiltinOptions2 StablehloScatterOptions."update_computation_subgraph_index" @6;
    true BuiltinOptions2 StablehloCustomCallOptions."called_computations" @4 vector;
    true BuiltinOptions2 StableHLOCompositeOptions."decomposition_subgraph_index" @1;
    true BuiltinOptions2 StablehloCaseOptions."branch_subgraph_indices" @0 vector;
}

/// The tags of [`CALLS`] in each union (`builtin_options`', `builtin_options_2`'), folded
/// into 32 bits (tag `t` sets bit `t % 32`): one test tells nearly every operator whose
/// options call no subgraph. A tag that shares its bit with a calling one only costs reading
/// the options.
static CALLING_TAGS: [u32; 2] = calling_tags(&CALLS_TABLE);

/// [`CALLING_TAGS`], made at compile time.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::as_conversions)] // compile time: a panic is a build error
const fn calling_tags(calls: &[Call]) -> [u32; 2] {
    let mut sets = [0u32; 2];
    let mut i = 0;
    while i < calls.len() {
        let call = &calls[i];
        sets[call.second as usize] |= 1 << (call.tag % 32);
        i += 1;
    }
    sets
}

/// Whether options of the union tags `tags` (`builtin_options_type`,
/// `builtin_options_2_type`) may call a subgraph: whether a tag other than 0 (none) has its
/// bit in [`CALLING_TAGS`].
fn may_call(tags: [u8; 2]) -> bool {
    let mut may = false;
    for (set, tag) in CALLING_TAGS.iter().zip(tags) {
        may |= tag != 0 && (set >> (tag % 32)) & 1 != 0;
    }
    may
}

/// Calls `f(subgraph_index, site)` for every subgraph the operator `op` calls, whose options
/// unions have the type tags `tags` (`builtin_options_type`, `builtin_options_2_type`). Reads
/// only the control-flow members, without building the unions' values. (`CallOptions.subgraph`
/// is a `uint`, read as an `int` like the others: a value past `i32::MAX` is out of range
/// either way.)
pub(crate) fn for_each_called_subgraph(op: Table<'_>, tags: [u8; 2], f: &mut dyn FnMut(i64, &'static Site)) {
    if !may_call(tags) {
        return;
    }
    for call in &CALLS {
        let (slot, site) = if call.second { (OPTIONS_2, &CALLED_SUBGRAPH_2) } else { (OPTIONS, &CALLED_SUBGRAPH) };
        if tags.get(usize::from(call.second)) != Some(&call.tag) {
            continue;
        }
        let Some(options) = op.raw_table(slot) else { continue };
        if call.vector {
            for index in options.vector::<i32>(call.slot).unwrap_or_default().iter() {
                f(i64::from(index), site);
            }
        } else {
            f(i64::from(options.scalar::<i32>(call.slot, 0)), site);
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)] // in tests a panic is a failure
mod tests {
    use super::{CALLS, CALL_FIELDS, OPTIONS, OPTIONS_2};
    use crate::schema::{FieldKind, TableDesc, TableType, UnionDesc};

    /// The union `operator`'s field `name` holds, at the slot given.
    fn union_of(operator: &TableDesc, name: &str, slot: u16) -> &'static UnionDesc {
        let field = operator.fields.iter().find(|f| f.name == name).expect("the field");
        assert_eq!(field.slot, slot, "{}.{name}", operator.name);
        match field.kind {
            FieldKind::Union(union) => union(),
            _ => panic!("{name} is not a union"),
        }
    }

    /// Every call's table has the field at the slot, under the same tag of the same union, in
    /// the schema of `operator`, whose options slots are the same.
    fn check(schema: &str, operator: &TableDesc) {
        let unions =
            [union_of(operator, "builtin_options", OPTIONS), union_of(operator, "builtin_options_2", OPTIONS_2)];
        for (call, (second, table, field)) in CALLS.iter().zip(CALL_FIELDS) {
            let union = unions[usize::from(second)];
            let (name, desc) = union.variant(call.tag).expect("a member at the tag");
            assert_eq!(name, table, "{schema}: {} tag {}", union.name, call.tag);
            let at = desc.fields.iter().find(|f| f.name == field).map(|f| f.slot);
            assert_eq!(at, Some(call.slot), "{schema}: {table}.{field}");
        }
    }

    #[test]
    fn the_control_flow_tags_and_slots_are_both_schemas() {
        check("tflite", crate::tflite::Operator::desc());
        check("circle", crate::circle::Operator::desc());
    }
}
