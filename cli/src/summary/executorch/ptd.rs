//! A `.ptd` data file (program-data separation): its `FH01` header, its segments and its named
//! data, each with the segment holding it and its tensor layout when it has one.

use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::facts::{elements, scalar_dtype};
use crate::summary::weights::grouped;
use flatmodel::ptd::PtdFile;
use flatmodel::pte::ScalarType;
use serde::Serialize;
use std::io::Write;

/// How many named data the text lists without `--tensors` (the JSON lists every one).
const LISTED: usize = 20;

/// A `.ptd` file.
#[derive(Debug, Serialize)]
pub struct PtdSummary {
    /// `ExecuTorch data file (.ptd)`.
    pub format: &'static str,
    /// The file's length.
    pub file_bytes: usize,
    /// `FlatTensor.version`.
    pub version: u32,
    /// The `FH01` header.
    pub header: PtdHeaderFields,
    /// Every segment.
    pub segments: Vec<PtdSegment>,
    /// The segments' bytes.
    pub segment_bytes: u64,
    /// Every named datum.
    pub named_data: Vec<PtdNamed>,
    /// Whether the text listed every named datum (`--tensors`).
    #[serde(skip)]
    all: bool,
}

/// A `.ptd`'s `FH01` header.
#[derive(Debug, Serialize)]
pub struct PtdHeaderFields {
    /// The header's length.
    pub length: u32,
    /// Where the flatbuffer's tables start.
    pub flatbuffer_offset: u64,
    /// The flatbuffer's length without the header.
    pub flatbuffer_size: u64,
    /// Where the segments start.
    pub segment_base_offset: u64,
    /// The segments' total size.
    pub segment_data_size: u64,
}

/// A segment.
#[derive(Debug, Serialize)]
pub struct PtdSegment {
    /// Its index.
    pub index: usize,
    /// `DataSegment.offset`, from `segment_base_offset`.
    pub offset: u64,
    /// Its offset in the file.
    pub file_offset: u64,
    /// `DataSegment.size`.
    pub size: u64,
}

/// A named datum.
#[derive(Debug, Serialize)]
pub struct PtdNamed {
    /// Its key.
    pub key: String,
    /// The segment holding it.
    pub segment: u32,
    /// Its offset within that segment (the datum starts the segment).
    pub offset: u64,
    /// Its offset in the file.
    pub file_offset: Option<u64>,
    /// Its bytes: its layout's elements times their size, else its segment's size.
    pub bytes: Option<u64>,
    /// Its tensor layout, when it has one.
    pub layout: Option<PtdLayout>,
}

/// A named datum's tensor layout.
#[derive(Debug, Serialize)]
pub struct PtdLayout {
    /// The scalar type, by NumPy's name where it has one.
    pub dtype: String,
    /// `sizes`.
    pub shape: Vec<i32>,
    /// `dim_order`.
    pub dim_order: Vec<u8>,
}

impl PtdSummary {
    /// The summary of the verified `file`, charged to `budget`.
    pub fn of(file: &PtdFile<'_>, tensors: bool, budget: &mut Budget) -> Result<Self, OverBudget> {
        let t = file.flat_tensor();
        let h = file.header();
        let mut segments = Vec::new();
        for (index, s) in t.segments().into_iter().flatten().enumerate() {
            budget.charge(1)?;
            let file_offset = h.segment_base_offset.saturating_add(s.offset());
            segments.push(PtdSegment { index, offset: s.offset(), file_offset, size: s.size() });
        }
        let mut named_data = Vec::new();
        for d in t.named_data().into_iter().flatten() {
            budget.charge(1)?;
            let segment = d.segment_index();
            let found = usize::try_from(segment).ok().and_then(|i| segments.get(i));
            let layout = match d.tensor_layout() {
                Some(l) => {
                    let (sizes, order) = (l.sizes(), l.dim_order());
                    budget.charge(sizes.map_or(0, |s| s.len()).saturating_add(order.map_or(0, |o| o.len())))?;
                    Some((
                        PtdLayout {
                            dtype: scalar_dtype(ScalarType(l.scalar_type().0)),
                            shape: sizes.into_iter().flatten().collect(),
                            dim_order: order.into_iter().flatten().collect(),
                        },
                        ScalarType(l.scalar_type().0).element_size(),
                    ))
                }
                None => None,
            };
            let bytes = match &layout {
                Some((l, size)) => size.and_then(|s| elements(l.shape.iter().copied()).checked_mul(s)),
                None => found.map(|s| s.size),
            };
            named_data.push(PtdNamed {
                key: budget.text(d.key().unwrap_or(""))?,
                segment,
                offset: 0,
                file_offset: found.map(|s| s.file_offset),
                bytes,
                layout: layout.map(|(l, _)| l),
            });
        }
        Ok(PtdSummary {
            format: "ExecuTorch data file (.ptd)",
            file_bytes: file.bytes().len(),
            version: t.version(),
            header: PtdHeaderFields {
                length: h.length,
                flatbuffer_offset: h.flatbuffer_offset,
                flatbuffer_size: h.flatbuffer_size,
                segment_base_offset: h.segment_base_offset,
                segment_data_size: h.segment_data_size,
            },
            segment_bytes: segments.iter().fold(0u64, |sum, s| sum.saturating_add(s.size)),
            segments,
            named_data,
            all: tensors,
        })
    }

    /// The text lines after the file's name.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let h = &self.header;
        writeln!(out, "  format:     {}", self.format)?;
        writeln!(out, "  version:    {}", self.version)?;
        writeln!(out, "  size:       {} bytes", grouped(to_u64(self.file_bytes)))?;
        writeln!(
            out,
            "  header:     FH01, {} bytes; flatbuffer 0..{} ({} bytes of tables after the header)",
            h.length,
            h.flatbuffer_offset.saturating_add(h.flatbuffer_size),
            grouped(h.flatbuffer_size)
        )?;
        writeln!(
            out,
            "  segments:   {} ({} bytes) from file offset {} ({} bytes of segment data)",
            self.segments.len(),
            grouped(self.segment_bytes),
            h.segment_base_offset,
            grouped(h.segment_data_size)
        )?;
        let shown = if self.all { self.segments.len() } else { LISTED.min(self.segments.len()) };
        for s in self.segments.iter().take(shown) {
            writeln!(out, "    [{}] offset {} (file {}), {} bytes", s.index, s.offset, s.file_offset, grouped(s.size))?;
        }
        more(out, self.segments.len(), shown)?;
        let layouts = self.named_data.iter().filter(|d| d.layout.is_some()).count();
        writeln!(out, "  named data: {} ({layouts} with a tensor layout)", self.named_data.len())?;
        let shown = if self.all { self.named_data.len() } else { LISTED.min(self.named_data.len()) };
        for d in self.named_data.iter().take(shown) {
            let bytes = d.bytes.map_or_else(|| "?".to_string(), grouped);
            let layout = d.layout.as_ref().map_or_else(String::new, |l| {
                let dims: Vec<String> = l.shape.iter().map(i32::to_string).collect();
                let order: Vec<String> = l.dim_order.iter().map(u8::to_string).collect();
                format!(", {} [{}] dim order [{}]", l.dtype, dims.join(","), order.join(","))
            });
            writeln!(out, "    {}: segment {} at {}, {bytes} bytes{layout}", d.key, d.segment, d.offset)?;
        }
        more(out, self.named_data.len(), shown)
    }
}

/// The line saying how many rows the text left out.
fn more(out: &mut dyn Write, len: usize, shown: usize) -> std::io::Result<()> {
    if shown < len {
        writeln!(out, "    ... {} more (--tensors lists every one)", len.saturating_sub(shown))?;
    }
    Ok(())
}
