//! The rules on the model's own lists that point elsewhere: metadata entries name buffers,
//! signatures name a subgraph and tensors of it (`docs/tflite.md` §1.4 and §1.6); and the
//! warning for metadata names used twice. TFLite and Circle (0.4 and later) store them in the
//! same tables.

use super::checker::path::{INNER, METADATA, METADATA_BUFFER, OUTER, SIGNATURE_DEFS, SIGNATURE_INPUTS};
use super::checker::path::{SIGNATURE_OUTPUTS, SUBGRAPH_INDEX, TENSOR_INDEX};
use super::checker::{Checked, Checker, Site};
use super::{FormatRules, MetadataView, SignatureView, SubGraphView, TensorMapView, Warning};
use crate::error::ErrorKind::IndexOutOfRange as RANGE;
use crate::wire::{FromTable, TableVector};

macro_rules! sites {
    ($($id:ident = $kind:expr, $path:expr;)*) => {$(static $id: Site = Site::new($kind, $path);)*};
}

sites! {
    METADATA_BUFFER_INDEX = RANGE, [METADATA | OUTER, METADATA_BUFFER, 0, 0];
    SIGNATURE_SUBGRAPH = RANGE, [SIGNATURE_DEFS | OUTER, SUBGRAPH_INDEX, 0, 0];
    SIGNATURE_INPUT = RANGE, [SIGNATURE_DEFS | OUTER, SIGNATURE_INPUTS | INNER, TENSOR_INDEX, 0];
    SIGNATURE_OUTPUT = RANGE, [SIGNATURE_DEFS | OUTER, SIGNATURE_OUTPUTS | INNER, TENSOR_INDEX, 0];
}

/// Each metadata entry names a buffer of the model; charges what the duplicate-name warning
/// will spend on each entry.
pub(super) fn metadata_rules<'a, M: FormatRules<'a>>(c: &mut Checker<'a, M>) -> Checked {
    let Some(metadata) = c.model.metadata_list() else { return Ok(()) };
    let count = metadata.len();
    for i in 0..count {
        let Some(meta) = metadata.get(i) else { continue };
        // The entry, and what the warnings' duplicate-name scan may spend on it.
        c.charge(duplicate_scan_cost(count, i, meta.name()).saturating_add(1))?;
        if usize::try_from(meta.buffer()).map_or(true, |b| b >= c.buffers()) {
            c.outer = i;
            return Err(c.fail(&METADATA_BUFFER_INDEX, meta.position()));
        }
    }
    Ok(())
}

/// Each signature names one of the `subgraphs`, and each of its tensor maps a tensor of it.
pub(super) fn signature_rules<'a, M: FormatRules<'a>>(
    c: &mut Checker<'a, M>,
    subgraphs: &TableVector<'a, M::SubGraph>,
) -> Checked {
    let Some(signatures) = c.model.signature_list() else { return Ok(()) };
    for i in 0..signatures.len() {
        let Some(sig) = signatures.get(i) else { continue };
        c.charge(1)?;
        c.outer = i;
        let Some(sg) = usize::try_from(sig.subgraph_index()).ok().and_then(|s| subgraphs.get(s)) else {
            return Err(c.fail(&SIGNATURE_SUBGRAPH, sig.position()));
        };
        let count = sg.tensors().map_or(0, |t| t.len());
        tensor_maps(c, sig.inputs(), count, &SIGNATURE_INPUT)?;
        tensor_maps(c, sig.outputs(), count, &SIGNATURE_OUTPUT)?;
    }
    Ok(())
}

/// Each of a signature's `maps` names one of the `count` tensors of its subgraph.
#[inline(never)]
fn tensor_maps<'a, M: FormatRules<'a>, T: TensorMapView<'a> + FromTable<'a>>(
    c: &mut Checker<'a, M>,
    maps: Option<TableVector<'a, T>>,
    count: usize,
    site: &'static Site,
) -> Checked {
    let Some(maps) = maps else { return Ok(()) };
    for j in 0..maps.len() {
        let Some(map) = maps.get(j) else { continue };
        c.charge(1)?;
        if usize::try_from(map.tensor_index()).map_or(true, |t| t >= count) {
            c.inner = j;
            return Err(c.fail(site, map.position()));
        }
    }
    Ok(())
}

/// How many later metadata entries each name is compared with when looking for duplicates.
const DUPLICATE_WINDOW: usize = 64;

/// The work of comparing entry `i` of `count` metadata entries, named `name`, with the later
/// ones in its window: a unit per comparison plus one per 16 bytes of the name.
fn duplicate_scan_cost(count: usize, i: usize, name: Option<&str>) -> usize {
    let Some(name) = name else { return 0 };
    let compared = count.saturating_sub(i.saturating_add(1)).min(DUPLICATE_WINDOW);
    compared.saturating_mul((name.len() / 16).saturating_add(1))
}

/// Metadata names repeated within [`DUPLICATE_WINDOW`] entries, each entry charged as
/// [`metadata_rules`] charged it.
pub(super) fn duplicate_metadata<'a, M: FormatRules<'a>>(
    c: &mut Checker<'a, M>,
    f: &mut dyn FnMut(Warning),
) -> Checked {
    let Some(meta) = c.model.metadata_list() else { return Ok(()) };
    let name = |i: usize| meta.get(i).and_then(|m| m.name());
    for i in 0..meta.len() {
        let a = name(i);
        c.charge(duplicate_scan_cost(meta.len(), i, a))?;
        let Some(a) = a else { continue };
        let later = i.saturating_add(1)..i.saturating_add(DUPLICATE_WINDOW).saturating_add(1).min(meta.len());
        if later.into_iter().any(|j| name(j) == Some(a)) {
            f(Warning::DuplicateMetadataName);
            break;
        }
    }
    Ok(())
}
