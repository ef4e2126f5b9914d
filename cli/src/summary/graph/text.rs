//! The text `inspect` prints of a TFLite or Circle model's summary.

use super::{CircleOwn, FormatOwn, GraphSummary, Nested, OperatorCount, Subgraph, TensorName, TensorRow, TfliteOwn};
use crate::convert::to_u64;
use crate::summary::facts::{Quant, TensorFacts};
use crate::summary::weights::grouped;
use std::io::Write;

/// `-` for a missing string.
fn or_dash(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("-")
}

/// `[1,2,3]`.
fn list<T: std::fmt::Display>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(T::to_string).collect();
    format!("[{}]", items.join(","))
}

impl GraphSummary {
    /// Prints the summary as text, under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        writeln!(out, "{name}")?;
        writeln!(out, "  format:              {} (schema version {})", self.format, self.schema_version)?;
        writeln!(out, "  description:         {}", or_dash(&self.description))?;
        match &self.own {
            FormatOwn::Circle(c) => {
                let text = match c.circle_revision {
                    "0" => "0 (by its content: operator codes in slot 0 only, or a data_format)",
                    "0.4+" => "0.4 or later (by its content: fields revision 0 lacks)",
                    _ => "not told by its content (it reads alike with either)",
                };
                writeln!(out, "  circle revision:     {text}")?;
            }
            FormatOwn::Tflite(t) => writeln!(out, "  min runtime version: {}", or_dash(&t.min_runtime_version))?,
        }
        writeln!(out, "  model rules:         {}", self.model_rules)?;
        writeln!(out, "  warnings:            {}", self.warnings.count())?;
        self.warnings.print(out, "    ")?;
        crate::summary::needs::print(out, "  needs:               ", &self.needs)?;
        crate::summary::io::print(out, &self.io)?;
        let file = format!("{} bytes", grouped(to_u64(self.file_bytes)));
        self.weights.print(out, "  size:                ", &file)?;
        writeln!(out, "  subgraphs:           {}", self.subgraphs.len())?;
        for sg in &self.subgraphs {
            sg.print(out)?;
        }
        writeln!(out, "  operators:")?;
        let mut rows: Vec<&OperatorCount> = self.operators.iter().collect();
        rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        for op in rows {
            writeln!(out, "    {:>6}  {} v{}", op.count, op.name, op.version)?;
        }
        writeln!(out, "  signatures:{}", if self.signatures.is_empty() { "          -" } else { "" })?;
        for sig in &self.signatures {
            let names = |list: &[TensorName]| {
                list.iter().map(|t| format!("{}={}", or_dash(&t.name), t.tensor)).collect::<Vec<_>>().join(", ")
            };
            writeln!(
                out,
                "    {} (subgraph {}): inputs [{}] outputs [{}]",
                or_dash(&sig.key),
                sig.subgraph,
                names(&sig.inputs),
                names(&sig.outputs)
            )?;
        }
        let meta: Vec<&str> = self.metadata.iter().map(|m| or_dash(&m.name)).collect();
        writeln!(out, "  metadata:            {}", if meta.is_empty() { "-".into() } else { meta.join(", ") })?;
        match &self.own {
            FormatOwn::Tflite(t) => t.print(out)?,
            FormatOwn::Circle(c) => c.print(out)?,
        }
        writeln!(
            out,
            "  buffers:             {} ({} bytes inside the flatbuffer, {} outside)",
            self.buffers,
            grouped(self.buffer_bytes_inside),
            grouped(self.buffer_bytes_outside)
        )
    }
}

impl TfliteOwn {
    /// The lines of TFLite's metadata readings.
    fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        if let Some(files) = &self.associated_files {
            files.print(out)?;
        }
        match &self.conversion_metadata {
            Some(Nested::Invalid { error }) => writeln!(out, "  converted by:        invalid record: {error}")?,
            Some(Nested::Read(record)) => record.print(out)?,
            None => {}
        }
        match &self.support_metadata {
            Some(Nested::Invalid { error }) => writeln!(out, "  model metadata:      invalid: {error}")?,
            Some(Nested::Read(meta)) => meta.print(out)?,
            None => {}
        }
        Ok(())
    }
}

impl CircleOwn {
    /// The lines of Circle's own fields.
    fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        for run in &self.run_model {
            let signature = run.signature.as_deref().filter(|s| !s.is_empty());
            writeln!(
                out,
                "  runs model:          {} ({}) from subgraph {} operator {}",
                or_dash(&run.location),
                signature.map_or_else(|| "its first subgraph".into(), |s| format!("signature {s}")),
                run.subgraph,
                run.operator
            )?;
        }
        match &self.training {
            Some(Nested::Invalid { error }) => writeln!(out, "  training:            invalid: {error}")?,
            Some(Nested::Read(training)) => training.print(out)?,
            None => {}
        }
        writeln!(out, "  metadata buffers:    {}", list(&self.metadata_buffer))
    }
}

impl Subgraph {
    /// Its line, its calls, its arena and, with `--tensors`, its tensor table.
    fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let layout = self.data_format.as_ref().map(|f| format!(", {f}")).unwrap_or_default();
        writeln!(
            out,
            "    [{}] {}: {} tensors, {} operators, inputs {}, outputs {}{layout}",
            self.index,
            or_dash(&self.name),
            self.tensors,
            self.operators,
            list(&self.inputs),
            list(&self.outputs)
        )?;
        for call in &self.calls {
            writeln!(out, "      operator {} {} calls subgraphs {}", call.operator, call.name, list(&call.subgraphs))?;
        }
        self.arena.print(out)?;
        if let Some(rows) = &self.tensor_list {
            print_tensor_table(out, rows)?;
        }
        Ok(())
    }
}

/// The stored shape with the dimensions `shape_signature` leaves dynamic (-1) marked `?`:
/// `[1?,224,224,3]`.
fn shape_text(t: &TensorFacts) -> String {
    let signature = t.shape_signature.as_ref().filter(|s| s.len() == t.shape.len());
    let parts: Vec<String> = t
        .shape
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let dynamic = signature.and_then(|s| s.get(i)) == Some(&-1);
            format!("{d}{}", if dynamic { "?" } else { "" })
        })
        .collect();
    format!("[{}]", parts.join(","))
}

/// One aligned row per tensor under a header; the name comes last, as names vary in length.
fn print_tensor_table(out: &mut dyn Write, rows: &[TensorRow]) -> std::io::Result<()> {
    const HEADER: [&str; 7] = ["INDEX", "TYPE", "SHAPE", "BYTES", "BUFFER", "QUANTIZATION", "NAME"];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|TensorRow(t)| {
            [
                t.index.to_string(),
                t.element.to_string(),
                shape_text(t),
                t.data_bytes.to_string(),
                t.buffer.to_string(),
                t.quant.as_ref().map_or_else(|| "-".into(), Quant::text),
                or_dash(&t.name).to_string(),
            ]
        })
        .collect();
    let mut widths = HEADER.map(str::len);
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |out: &mut dyn Write, row: [&str; 7]| -> std::io::Result<()> {
        let [index, ty, shape, bytes, buffer, quant, name] = row;
        let [wi, wt, ws, wb, wf, wq, _] = widths;
        writeln!(out, "      {index:>wi$}  {ty:<wt$}  {shape:<ws$}  {bytes:>wb$}  {buffer:>wf$}  {quant:<wq$}  {name}")
    };
    writeln!(out, "      shape: ? marks a dimension that is dynamic (-1 in shape_signature)")?;
    line(out, HEADER)?;
    for row in &cells {
        line(out, [&row[0], &row[1], &row[2], &row[3], &row[4], &row[5], &row[6]].map(String::as_str))?;
    }
    Ok(())
}
