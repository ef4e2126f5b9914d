//! The summary of a LiteRT-LM file (`.litertlm`, `docs/litertlm.md` §8): its version, system
//! metadata and sections (type, range, size, items), each TFLiteModel section with the summary
//! `inspect` gives the same model as a file of its own ([`GraphSummary`]).
//!
//! Only the header, the metadata and the TFLite sections are read: nothing else of the file
//! (the other sections, the gaps between sections) is touched, so a mapped file of many
//! gigabytes costs the pages of what is summarised.

use crate::budget::{Budget, OverBudget};
use crate::convert::to_u64;
use crate::summary::graph::{GraphSummary, Nested, Rules};
use crate::summary::weights::grouped;
use flatmodel::litertlm::{AnySectionDataType, KeyValuePair, LitertLmFile, VData};
use flatmodel::verify::Options;
use serde::Serialize;
use serde_json::Value;
use std::io::Write;

/// What `inspect` says of a `.litertlm` file.
#[derive(Debug, Serialize)]
pub struct LitertlmSummary {
    /// Always `LiteRT-LM`.
    format: &'static str,
    /// The file's size.
    file_bytes: u64,
    /// The header's version, `major.minor.patch`.
    version: String,
    /// Where the metadata flatbuffer ends (the header's `header_end`); it starts at byte 32.
    header_end: u64,
    /// `system_metadata.entries`, in file order.
    system_metadata: Vec<Pair>,
    /// Every section, in the table's order.
    sections: Vec<SectionSummary>,
}

/// A key and its value, from the metadata.
#[derive(Debug, Serialize)]
struct Pair {
    /// The key.
    key: String,
    /// The value's type: the schema's name for it (`UInt8` ... `Double`, `Bool`,
    /// `StringValue`), else `VData(N)`.
    #[serde(rename = "type")]
    kind: String,
    /// The value: a number, a boolean or a string; `null` for a type the schema does not name.
    value: Value,
}

/// One section.
#[derive(Debug, Serialize)]
struct SectionSummary {
    /// Its position in `section_metadata.objects`.
    index: usize,
    /// Its type by the schema's name (`TFLiteModel`, `SP_Tokenizer`, ...), else its number as
    /// text.
    #[serde(rename = "type")]
    kind: String,
    /// Its `data_type` as stored.
    type_code: u8,
    /// Its first byte's file offset.
    begin_offset: u64,
    /// The file offset one past its last byte.
    end_offset: u64,
    /// Its size.
    bytes: u64,
    /// Its items, in file order.
    items: Vec<Pair>,
    /// A TFLiteModel section's own summary (what `inspect` gives the model alone), or why it
    /// cannot be given; absent for other types.
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<Nested<Box<GraphSummary>>>,
}

/// The schema's name for a section type, else its number.
pub fn type_name(t: AnySectionDataType) -> String {
    t.name().map_or_else(|| t.0.to_string(), str::to_string)
}

impl LitertlmSummary {
    /// The summary of a file whose rules passed (its sections lie inside it, apart, and its
    /// TFLite sections are valid models). The rows are charged to a budget sized by the
    /// metadata, from which they come; each TFLite section's summary has its own, sized by the
    /// section and listing every tensor when `tensors`.
    pub fn of(file: &LitertLmFile<'_>, tensors: bool) -> Result<LitertlmSummary, OverBudget> {
        let h = file.header();
        let mut budget = Budget::for_file(usize::try_from(h.header_end).unwrap_or(usize::MAX));
        let entries = file.metadata().system_metadata().and_then(|s| s.entries());
        let system_metadata = pairs(entries, &mut budget)?;
        let mut sections = Vec::new();
        for i in 0..file.section_count() {
            budget.charge(1)?;
            // The rules passed: every section resolves.
            let Ok(s) = file.section(i) else { continue };
            let summary = (s.data_type == AnySectionDataType::TFLiteModel).then(|| {
                match file.tflite_model(i, &Options::DEFAULT) {
                    Ok(m) => GraphSummary::of_tflite(m, tensors, Rules::Passed)
                        .map_or_else(|e| Nested::Invalid { error: e.to_string() }, |g| Nested::Read(Box::new(g))),
                    Err(e) => Nested::Invalid { error: e.to_string() },
                }
            });
            sections.push(SectionSummary {
                index: i,
                kind: type_name(s.data_type),
                type_code: s.data_type.0,
                begin_offset: s.begin,
                end_offset: s.end,
                bytes: to_u64(s.bytes.len()),
                items: pairs(s.object.items(), &mut budget)?,
                summary,
            });
        }
        Ok(LitertlmSummary {
            format: "LiteRT-LM",
            file_bytes: to_u64(file.bytes().len()),
            version: format!("{}.{}.{}", h.major, h.minor, h.patch),
            header_end: h.header_end,
            system_metadata,
            sections,
        })
    }
}

/// Key/value pairs copied out, each charged with its text.
fn pairs<'a>(
    entries: Option<impl IntoIterator<Item = KeyValuePair<'a>>>,
    budget: &mut Budget,
) -> Result<Vec<Pair>, OverBudget> {
    let mut out = Vec::new();
    for e in entries.into_iter().flatten() {
        budget.charge(1)?;
        let key = budget.text(e.key())?;
        let v = e.value();
        let kind = v.type_name().map_or_else(|| format!("VData({})", v.tag()), str::to_string);
        let value = match v {
            VData::UInt8(x) => Value::from(x.value()),
            VData::Int8(x) => Value::from(x.value()),
            VData::UInt16(x) => Value::from(x.value()),
            VData::Int16(x) => Value::from(x.value()),
            VData::UInt32(x) => Value::from(x.value()),
            VData::Int32(x) => Value::from(x.value()),
            VData::UInt64(x) => Value::from(x.value()),
            VData::Int64(x) => Value::from(x.value()),
            VData::Float32(x) => Value::from(f64::from(x.value())),
            VData::Double(x) => Value::from(x.value()),
            VData::Bool(x) => Value::from(x.value()),
            VData::StringValue(x) => Value::from(budget.text_of(x.value())?),
            _ => Value::Null,
        };
        out.push(Pair { key, kind, value });
    }
    Ok(out)
}

/// A value as text: a string quoted with its escapes, a number or boolean as JSON writes it,
/// `-` for none.
fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

impl LitertlmSummary {
    /// Prints the summary as text under the file's `name`: the header, the system metadata,
    /// the section table, then each TFLite section's own summary, indented.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        writeln!(out, "{name}")?;
        writeln!(out, "  format:          LiteRT-LM {}", self.version)?;
        writeln!(
            out,
            "  size:            {} bytes; metadata {} bytes at 32..{}",
            grouped(self.file_bytes),
            grouped(self.header_end.saturating_sub(32)),
            self.header_end
        )?;
        writeln!(out, "  system metadata: {}", self.system_metadata.len())?;
        print_pairs(out, "    ", &self.system_metadata)?;
        writeln!(out, "  sections:        {}", self.sections.len())?;
        for s in &self.sections {
            writeln!(
                out,
                "    [{}] {}: {} bytes at {}..{}",
                s.index,
                s.kind,
                grouped(s.bytes),
                s.begin_offset,
                s.end_offset
            )?;
            print_pairs(out, "        ", &s.items)?;
        }
        for s in &self.sections {
            let title = format!("  section {} ({}):", s.index, s.kind);
            match &s.summary {
                None => {}
                Some(Nested::Invalid { error }) => writeln!(out, "{title} {error}")?,
                Some(Nested::Read(graph)) => {
                    let mut text = Vec::new();
                    graph.print_text(&mut text, &title)?;
                    for (n, line) in String::from_utf8_lossy(&text).lines().enumerate() {
                        // The title keeps its own indent; the model's lines go two deeper.
                        let indent = if n == 0 { "" } else { "  " };
                        writeln!(out, "{indent}{line}")?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `KEY (TYPE): VALUE`, one a line under `indent`.
fn print_pairs(out: &mut dyn Write, indent: &str, pairs: &[Pair]) -> std::io::Result<()> {
    for p in pairs {
        writeln!(out, "{indent}{} ({}): {}", p.key, p.kind, value_text(&p.value))?;
    }
    Ok(())
}
