//! The text `inspect` prints of a cvimodel's summary: what `model_tool --info` shows.

use super::{CvimodelSummary, ListedTensor, ProgramSummary};
use std::io::Write;

impl CvimodelSummary {
    /// Prints the summary as text, under the file's `name`.
    pub fn print_text(&self, out: &mut dyn Write, name: &str) -> std::io::Result<()> {
        let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
        let h = &self.header;
        writeln!(out, "{name}")?;
        writeln!(out, "  format:          cvimodel (header {}.{}, {} bytes)", h.major, h.minor, h.header_bytes)?;
        writeln!(out, "  md5:             {} ({})", h.md5, if h.md5_ok { "ok" } else { "MISMATCH" })?;
        writeln!(out, "  mlir version:    {}", or_dash(&self.mlir_version))?;
        writeln!(out, "  version:         {}", or_dash(&self.version))?;
        writeln!(out, "  name:            {}", self.name)?;
        writeln!(out, "  build time:      {}", or_dash(&self.build_time))?;
        writeln!(out, "  chip:            {} (header {})", or_dash(&self.target), or_dash(&h.chip))?;
        let m = &self.memory;
        writeln!(
            out,
            "  ION memory:      {} MB ({} bytes: sections {}, private {}, shared {}, io {}, neuron {})",
            m.total_mb, m.total, m.sections, m.private, m.shared, m.io, m.neuron
        )?;
        writeln!(out, "  model rules:     {}", self.model_rules)?;
        self.warnings.print(out, "  warning:         ")?;
        writeln!(out, "  sections:")?;
        writeln!(out, "    ID   TYPE      NAME                     SIZE        OFFSET      FLAGS     MD5")?;
        for sec in &self.sections {
            let mut flags = Vec::new();
            if sec.encrypt {
                flags.push("enc".to_string());
            }
            if sec.compress {
                flags.push(format!("lz4->{}", sec.decompressed_size));
            }
            writeln!(
                out,
                "    {:03}  {:<10}{:<25}{:<12}{:<12}{:<10}{}",
                sec.index,
                sec.kind,
                sec.name,
                sec.size,
                sec.offset,
                if flags.is_empty() { "-".into() } else { flags.join(",") },
                sec.md5.clone().unwrap_or_else(|| or_dash(&sec.error))
            )?;
        }
        writeln!(out, "  weights:")?;
        writeln!(out, "    ID   OFFSET    SIZE      TYPE    SHAPE               NAME")?;
        for w in &self.weight_list {
            writeln!(
                out,
                "    {:03}  {:<10}{:<10}{:<8}{:<20}{}",
                w.index,
                w.offset,
                w.size,
                w.dtype,
                dims_text(&w.shape),
                or_dash(&w.name)
            )?;
        }
        for p in &self.programs {
            p.print_text(out)?;
        }
        Ok(())
    }
}

impl ProgramSummary {
    /// Prints the program: its sizes, inputs, outputs, routines and tensors.
    fn print_text(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(out, "  program #{}", self.index)?;
        writeln!(out, "    batch_num:     {}", self.batch_num)?;
        if self.neuron_size > 0 {
            writeln!(out, "    neuron_size:   {}", self.neuron_size)?;
        }
        writeln!(out, "    private_gmem:  {}", self.private_gmem)?;
        writeln!(out, "    shared_gmem:   {}", self.shared_gmem)?;
        for (label, listed) in [("input ", &self.input_tensors), ("output", &self.output_tensors)] {
            for t in listed {
                // What the JSON has for each field, `null` for nothing (and `-` for no text).
                let (name, dtype, shape, region, offset) = match t {
                    ListedTensor::Found(t) => (
                        t.name.as_str(),
                        t.dtype.as_str(),
                        dims_text(&t.shape),
                        t.region.unwrap_or("-"),
                        t.offset.map_or_else(|| "-".into(), |o| o.to_string()),
                    ),
                    ListedTensor::Missing { name, .. } => (name.as_str(), "-", "null".into(), "-", "null".into()),
                };
                writeln!(out, "    {label}:        {name} {dtype} {shape} ({region} @ {offset})")?;
            }
        }
        writeln!(out, "    routines:")?;
        for r in &self.routines {
            let what = match (&r.tpu, &r.cpu) {
                (Some(tpu), _) => format!("section {}", tpu.section.as_deref().unwrap_or("-")),
                (None, Some(cpu)) => format!("function {} ({} bytes of args)", cpu.function, cpu.function_args_bytes),
                (None, None) => "-".into(),
            };
            writeln!(
                out,
                "      #{:02} {}: {} -> {}; {what}",
                r.index,
                r.kind,
                r.inputs.join(","),
                r.outputs.join(",")
            )?;
        }
        writeln!(out, "    tensors:")?;
        writeln!(out, "      ID   OFFSET      TYPE  SHAPE               QSCALE     MEM     NAME")?;
        for t in &self.tensors {
            writeln!(
                out,
                "      {:03}  {:<12}{:<6}{:<20}{:<11}{:<8}{}",
                t.index,
                t.offset.map_or_else(|| "-".into(), |o| o.to_string()),
                t.dtype,
                dims_text(&t.shape),
                t.qscale.map_or_else(|| "-".into(), |q| format!("{:.6}", f64::from(q))),
                t.region.unwrap_or("-"),
                t.name
            )?;
        }
        Ok(())
    }
}

/// `[1,3,224,224]`.
fn dims_text(dims: &[i64]) -> String {
    format!("[{}]", dims.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
}
