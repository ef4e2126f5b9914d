//! The summary of a model bundle (a zip archive of models that is no nnpackage, such as
//! MediaPipe's `.task`): each member with its format, size and storage, and each model member
//! with its own summary, the one `inspect` gives that format's file.

use crate::convert::to_u64;
use crate::summary::graph::Nested;
use crate::summary::weights::grouped;
use crate::summary::Summary;
use flatmodel::bundle::{Bundle, Storage};
use flatmodel::Format;
use serde::Serialize;
use std::io::Write;

/// What `inspect` says of a model bundle.
#[derive(Debug, Serialize)]
pub struct BundleSummary {
    /// `bundle`.
    format: &'static str,
    /// The archive's size.
    file_bytes: u64,
    /// The members' sizes together (as stored or inflated).
    member_bytes: u64,
    /// Each member, in archive order.
    members: Vec<MemberSummary>,
}

/// One member of the bundle.
#[derive(Debug, Serialize)]
struct MemberSummary {
    /// Its position in the archive.
    index: usize,
    /// Its name in the archive.
    name: String,
    /// The format its bytes show (`tflite`, `circle`, `litertlm`, ...); `null` for a member no
    /// format claims, listed and not verified.
    #[serde(rename = "type")]
    member_type: Option<&'static str>,
    /// Its size.
    bytes: u64,
    /// `stored` or `deflated`.
    storage: &'static str,
    /// A stored member's first byte in the archive; `null` when deflated.
    offset: Option<u64>,
    /// A deflated member's size in the archive; `null` when stored.
    compressed_bytes: Option<u64>,
    /// A model member's own summary, or why it cannot be given; `null` for another member.
    summary: Option<Nested<Box<Summary>>>,
}

impl BundleSummary {
    /// The summary of a read bundle (every model member verified), each model member's own
    /// summary listing every tensor when `tensors`.
    pub fn of(bundle: &Bundle<'_>, tensors: bool) -> BundleSummary {
        let members: Vec<MemberSummary> = bundle
            .members()
            .iter()
            .enumerate()
            .map(|(index, member)| {
                let (storage, offset, compressed_bytes) = match member.storage() {
                    Storage::Stored { offset } => ("stored", Some(offset), None),
                    Storage::Deflated { compressed } => ("deflated", None, Some(compressed)),
                };
                let summary = bundle.member_file(index).map(|file| match file {
                    Ok(file) => match Summary::of_file(file, tensors) {
                        Ok(summary) => Nested::Read(Box::new(summary)),
                        Err(refused) => Nested::Invalid { error: refused.reason },
                    },
                    Err(e) => Nested::Invalid { error: e.to_string() },
                });
                MemberSummary {
                    index,
                    name: member.name().to_string(),
                    member_type: member.format().map(Format::short_name),
                    bytes: to_u64(member.size()),
                    storage,
                    offset,
                    compressed_bytes,
                    summary,
                }
            })
            .collect();
        BundleSummary {
            format: "bundle",
            file_bytes: to_u64(bundle.archive().len()),
            member_bytes: members.iter().fold(0u64, |sum, m| sum.saturating_add(m.bytes)),
            members,
        }
    }

    /// Prints the summary as text under the bundle's `name`: the members, then each model
    /// member's own summary.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        let models = self.members.iter().filter(|m| m.member_type.is_some()).count();
        let other = self.members.len() - models;
        writeln!(out, "{name}")?;
        writeln!(out, "  format:      model bundle (zip archive)")?;
        writeln!(
            out,
            "  size:        {} bytes, {} bytes in members",
            grouped(self.file_bytes),
            grouped(self.member_bytes)
        )?;
        writeln!(out, "  members:     {} ({models} model(s), {other} other)", self.members.len())?;
        for m in &self.members {
            let kept = match (m.offset, m.compressed_bytes) {
                (Some(offset), _) => format!("stored at byte {offset}"),
                (None, Some(compressed)) => format!("deflated, {} bytes in the archive", grouped(compressed)),
                (None, None) => m.storage.to_string(),
            };
            let kind = m.member_type.unwrap_or("other");
            writeln!(out, "    [{}] {} ({kind}, {} bytes, {kept})", m.index, m.name, grouped(m.bytes))?;
        }
        for m in &self.members {
            if let Some(nested) = &m.summary {
                let title = format!("{name}: member {} ({})", m.index, m.name);
                nested.print_under(out, &title, |summary, out, title| summary.print_text(out, title))?;
            }
        }
        Ok(())
    }
}
