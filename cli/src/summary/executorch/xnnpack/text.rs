//! The text `inspect` prints of an XNNPACK graph: counts first, then a bounded listing of its
//! constants (every one, and every value, with `--tensors`).

use super::{WeightGroup, XnnConstant, XnnQuant, XnnStorage, XnnValue, XnnpackBlobSummary, XnnpackGraphSummary};
use crate::convert::to_u64;
use crate::summary::executorch::counts::print_histogram;
use crate::summary::io::print_indented;
use crate::summary::weights::{grouped, UNREAD};
use std::collections::BTreeMap;
use std::io::Write;

/// How many constants the text lists without `--tensors` (the JSON lists every one).
const LISTED: usize = 10;

impl XnnpackBlobSummary {
    /// The text lines after the file's name.
    pub fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  format:     {}", self.format)?;
        writeln!(out, "  size:       {} bytes", grouped(to_u64(self.file_bytes)))?;
        if let Some(h) = &self.header {
            writeln!(out, "  header:     XH00, {} bytes", h.header_size)?;
            let end = u64::from(h.flatbuffer_offset).saturating_add(u64::from(h.flatbuffer_size));
            writeln!(
                out,
                "  regions:    flatbuffer {}..{end} ({} bytes), constants {}..{} ({} bytes)",
                h.flatbuffer_offset,
                grouped(u64::from(h.flatbuffer_size)),
                h.constant_data_offset,
                u64::from(h.constant_data_offset).saturating_add(h.constant_data_size),
                grouped(h.constant_data_size)
            )?;
        }
        self.graph.print_text(out, "  ", tensors_listed(&self.graph))
    }
}

/// Whether the summary lists every value (`--tensors`), in which case constants are listed
/// whole too.
fn tensors_listed(graph: &XnnpackGraphSummary) -> bool {
    graph.tensor_list.is_some()
}

impl XnnpackGraphSummary {
    /// The graph's lines, indented by `indent`; every constant when `all`, else the first
    /// [`LISTED`].
    pub fn print_text(&self, out: &mut dyn Write, indent: &str, all: bool) -> std::io::Result<()> {
        writeln!(out, "{indent}version:    {}", self.version.as_deref().unwrap_or("-"))?;
        print_indented(out, &self.io, indent, 12)?;
        writeln!(out, "{indent}nodes:      {}", self.node_count)?;
        print_histogram(out, self.nodes.iter().map(|o| (o.name.as_str(), o.count)), &format!("{indent}  "))?;
        let line = |m: &BTreeMap<String, u64>| {
            let parts: Vec<String> = m.iter().map(|(k, n)| format!("{n} {k}")).collect();
            if parts.is_empty() {
                "-".to_string()
            } else {
                parts.join(", ")
            }
        };
        writeln!(out, "{indent}values:     {} ({})", self.value_count, line(&self.values.by_kind))?;
        writeln!(out, "{indent}  by dtype:        {}", line(&self.values.by_dtype))?;
        writeln!(out, "{indent}  by quantization: {}", line(&self.values.by_quantization))?;
        // The ports are listed above; a quantized one is listed again with its parameters.
        for v in self.inputs.iter().chain(&self.outputs).filter(|v| v.quantization.is_some()) {
            writeln!(out, "{indent}  port {}", v.text())?;
        }
        writeln!(
            out,
            "{indent}constants:  {} ({} bytes), {} externs",
            self.constant_count,
            grouped(self.constant_bytes),
            self.num_externs
        )?;
        let groups = |list: &[WeightGroup]| {
            let parts: Vec<String> =
                list.iter().map(|w| format!("{} {} ({} bytes)", w.count, w.name, grouped(w.bytes))).collect();
            if parts.is_empty() {
                "-".to_string()
            } else {
                parts.join(", ")
            }
        };
        writeln!(out, "{indent}  weights by type:     {}", groups(&self.weight_groups.by_dtype))?;
        writeln!(out, "{indent}  weights by operator: {}", groups(&self.weight_groups.by_operator))?;
        let shown = if all { self.constants.len() } else { LISTED.min(self.constants.len()) };
        for c in self.constants.iter().take(shown) {
            writeln!(out, "{indent}  {}", c.text())?;
        }
        if shown < self.constants.len() {
            writeln!(
                out,
                "{indent}  ... {} more (--tensors lists every one)",
                self.constants.len().saturating_sub(shown)
            )?;
        }
        if let Some(rows) = &self.tensor_list {
            writeln!(out, "{indent}every value:")?;
            for v in rows {
                writeln!(out, "{indent}  {}", v.text())?;
            }
        }
        Ok(())
    }
}

impl XnnQuant {
    /// The parameters as printed.
    fn text(&self) -> String {
        match self {
            XnnQuant::PerTensor { scale, zero_point } => format!("per-tensor scale {scale} zero point {zero_point}"),
            XnnQuant::PerChannel { axis, scales, scales_stored } => {
                format!("per-channel axis {axis}, {scales} scales ({scales_stored})")
            }
            XnnQuant::PerChannelGroup { axis, group_size, scales, scales_stored } => {
                format!("per-channel-group axis {axis} group {group_size}, {scales} scales ({scales_stored})")
            }
            XnnQuant::DynamicPerToken { num_nonbatch_dims } => {
                format!("dynamic per-token ({num_nonbatch_dims} non-batch dims)")
            }
            XnnQuant::Unknown { type_number } => format!("XNNQuantParams({type_number})"),
        }
    }
}

impl XnnValue {
    /// The value's line: id, dtype, shape, quantization, constant.
    fn text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().flatten().map(u32::to_string).collect();
        let mut line = format!("#{} {} [{}]", self.id, self.dtype.as_deref().unwrap_or("-"), dims.join(","));
        if let Some(q) = &self.quantization {
            line.push_str(&format!(", {}", q.text()));
        }
        if let Some(c) = self.constant {
            line.push_str(&format!(", constant {c}"));
        }
        line
    }
}

impl XnnConstant {
    /// The constant's line: index, bytes, what it holds, who reads it, where it lives.
    fn text(&self) -> String {
        let what = match (&self.dtype, self.value, self.role) {
            (Some(d), Some(v), Some("scales")) => format!("{d} scales of #{v}"),
            (Some(d), Some(v), _) => format!("{d} #{v}"),
            _ => "-".to_string(),
        };
        let reader = self.operator.as_deref().unwrap_or(UNREAD);
        let place = match &self.storage {
            XnnStorage::Inline { offset, blob_offset: Some(at) } => format!("inline at {offset} (blob offset {at})"),
            XnnStorage::Inline { offset, blob_offset: None } => format!("inline at {offset}"),
            XnnStorage::Named { key, found: Some(false) } => {
                format!("named {key} (not in the program's named data: a .ptd's)")
            }
            XnnStorage::Named { key, .. } => format!("named {key}"),
            XnnStorage::OutsideBareGraph { offset } => {
                format!("constant region at {offset} (not part of a bare XNNGraph)")
            }
            XnnStorage::Unreadable { error } => format!("unreadable: {error}"),
        };
        format!("[{}] {} bytes, {what}, {reader}, {place}", self.index, grouped(self.bytes))
    }
}
