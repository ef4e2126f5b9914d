//! The commands for Sophgo cvimodel files: `verify`, `inspect` (what `model_tool --info`
//! shows), `dump` (the flatbuffer body) and `extract` (`section:NAME`, `section-data:NAME`,
//! `weight:NAME`).

use crate::budget::{Budget, OverBudget};
use crate::output::Out;
use crate::{Failure, Outcome};
use flatmodel::cvimodel::{self, CviModel, DType, MemoryRegion, SectionType, Warning};
use flatmodel::dump::Dumpable;
use flatmodel::verify::Options;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Write;

/// Whether `bytes` are a cvimodel file.
pub fn reads(bytes: &[u8]) -> bool {
    flatmodel::detect(bytes) == Some(flatmodel::Format::Cvimodel)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The section type as `model_tool` names it.
pub fn section_type_name(t: SectionType) -> String {
    match t {
        SectionType::WEIGHT => "weight".into(),
        SectionType::CMDBUF => "cmdbuf".into(),
        SectionType::DMABUF => "dmabuf".into(),
        SectionType::FUNC_X86 => "x86_64".into(),
        SectionType::FUNC_AARCH64 => "aarch64".into(),
        other => format!("SectionType({})", other.0),
    }
}

/// The element type as `model_tool` names it.
fn dtype_name(t: DType) -> String {
    t.name().map_or_else(|| format!("DType({})", t.0), |n| if n == "FP32" { "fp32".into() } else { n.to_lowercase() })
}

fn region_name(r: MemoryRegion) -> &'static str {
    match r {
        MemoryRegion::Shared => "shared",
        MemoryRegion::Weight => "weight",
        MemoryRegion::Private => "private",
        MemoryRegion::Io(_) => "io_mem",
    }
}

fn warning_text(w: Warning) -> String {
    match w {
        Warning::Md5Mismatch { stored, computed } => {
            format!("header md5 {} is not the md5 of the file after the header ({})", hex(&stored), hex(&computed))
        }
        Warning::UntaggedWeightOffset { weight } => format!("weight_map[{weight}].offset lacks the bit-40 tag"),
        Warning::VersionMismatch => "the header's version is not Model.version".into(),
        Warning::ChipMismatch => "the header's chip is not Model.target".into(),
        Warning::RoutineSectionType { program, routine } => {
            format!("programs[{program}].routines[{routine}] names a section of another type")
        }
        Warning::EncryptedSection { section } => format!("sections[{section}] is encrypted (not interpreted)"),
        other => format!("{other:?}"),
    }
}

/// `flatmodel verify` on a cvimodel: header, body, the rules and every LZ4 section checked
/// without inflating it; a short description and the warnings, or why the file is invalid.
pub fn check(bytes: &[u8]) -> Result<crate::commands::verify::Verdict, String> {
    let file = CviModel::parse(bytes).map_err(|e| e.to_string())?;
    let warnings = crate::summary::warnings::Warnings::collect(|f| file.for_each_warning(|w| f(warning_text(w))));
    let h = file.header();
    let summary = format!(
        "cvimodel v{}.{}, chip {}, {} program(s), {} section(s), md5 {}",
        h.major,
        h.minor,
        h.chip_name().unwrap_or("-"),
        file.model().programs().map_or(0, |p| p.len()),
        file.model().sections().map_or(0, |s| s.len()),
        if file.md5_check().matches() { "ok" } else { "mismatch" },
    );
    Ok(crate::commands::verify::Verdict { summary, warnings })
}

/// One tensor of a program as `inspect` lists it.
fn tensor_json(index: usize, t: &cvimodel::Tensor<'_>) -> Value {
    let dims: Vec<i64> = t.shape().and_then(|s| s.dim()).map(|d| d.iter().collect()).unwrap_or_default();
    let address = t.address();
    json!({
        "index": index,
        "tensor_id": t.tensor_id(),
        "name": t.name(),
        "dtype": dtype_name(t.dtype()),
        "shape": dims,
        "offset": address.map(|a| a.offset),
        "region": address.map(|a| region_name(a.region)),
        "region_number": address.map(|a| a.region.number()),
        "qscale": t.quant().map(|q| q.qscale()),
        "zero_point": t.quant().map(|q| q.zero_point()),
        "size": t.size(),
        "overwrote": t.overwrote(),
    })
}

/// A program's input or output (listed by [`tensor_json`]) in the layout every format's `io`
/// shares (the JSON of `inspect`; the text lists them with their memory regions instead): an
/// integer tensor's `qscale` and `zero_point` as its per-tensor quantization.
fn port(t: &Value) -> Value {
    let integer = matches!(t["dtype"].as_str(), Some("int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32"));
    let quantization = match (integer, t["qscale"].as_f64()) {
        (true, Some(scale)) => {
            let zero_point = t["zero_point"].as_f64().unwrap_or(0.0);
            json!({"kind": "per-tensor", "scale": scale, "zero_point": zero_point.round() as i64})
        }
        _ => Value::Null,
    };
    // NumPy's names, as the other formats' `io` uses them.
    let dtype = match t["dtype"].as_str() {
        Some("fp32") => json!("float32"),
        Some("fp16") => json!("float16"),
        Some("bf16") => json!("bfloat16"),
        _ => t["dtype"].clone(),
    };
    json!({"name": t["name"], "tensor": t["index"], "dtype": dtype, "shape": t["shape"], "quantization": quantization})
}

/// The summary of a structurally valid cvimodel: what `model_tool --info` prints, and more.
/// Every section, weight, program, tensor and name it lists is charged to `budget`, as programs
/// and routines may share their lists.
pub fn summary(file: &CviModel<'_>, budget: &mut Budget) -> Result<Value, OverBudget> {
    let model = file.model();
    let h = file.header();
    let version = model.version().map(|v| format!("{}.{}.{}", v.major_(), v.minor_(), v.sub_minor()));
    let md5 = file.md5_check();
    let sections_by_name = first_by_name(model.sections().into_iter().flat_map(|s| s.iter()).map(|s| s.name()));
    let mut sections = Vec::new();
    for (i, s) in model.sections().into_iter().flat_map(|s| s.iter()).enumerate() {
        let resolved = file.section_at(i);
        // Sections may overlap: the MD5 of each is charged by its length.
        budget.charge(1usize.saturating_add(resolved.as_ref().map_or(0, |r| r.payload.len() / 16)))?;
        sections.push(json!({
            "index": i,
            "type": section_type_name(s.type_()),
            "name": s.name(),
            "size": s.size(),
            "offset": s.offset(),
            "file_offset": resolved.as_ref().ok().map(|r| r.file_offset),
            "encrypt": s.encrypt(),
            "compress": s.compress(),
            "decompressed_size": s.decompressed_size(),
            "md5": resolved.as_ref().ok().map(|r| format!("{:x}", md5_of(r.payload))),
            "error": resolved.err().map(|e| e.to_string()),
        }));
    }
    let mut weights = Vec::new();
    for (i, w) in model.weight_map().into_iter().flat_map(|w| w.iter()).enumerate() {
        let dims = w.shape().and_then(|s| s.dim());
        budget.charge(1usize.saturating_add(dims.map_or(0, |d| d.len())))?;
        weights.push(json!({
            "index": i,
            "name": w.name(),
            "offset": w.address().offset,
            "tagged": w.address().tagged,
            "size": w.size(),
            "type": dtype_name(w.type_()),
            "shape": dims.map(|d| d.iter().collect::<Vec<_>>()).unwrap_or_default(),
        }));
    }
    let mut programs = Vec::new();
    let mut io_entries = Vec::new();
    for (p, program) in model.programs().into_iter().flat_map(|p| p.iter()).enumerate() {
        budget.charge(1)?;
        let mut tensors: Vec<cvimodel::Tensor<'_>> = Vec::new();
        for t in program.tensor_map().into_iter().flat_map(|t| t.iter()) {
            budget.charge(1usize.saturating_add(t.shape().and_then(|s| s.dim()).map_or(0, |d| d.len())))?;
            tensors.push(t);
        }
        let by_name = first_by_name(tensors.iter().map(|t| t.name()));
        let find = |name: &str| -> Value {
            by_name
                .get(name)
                .and_then(|&i| Some((i, tensors.get(i)?)))
                .map_or_else(|| json!({"name": name, "missing": true}), |(i, t)| tensor_json(i, t))
        };
        let mut names = |v: Option<flatmodel::wire::StrVector<'_>>| -> Result<Vec<String>, OverBudget> {
            let mut listed = Vec::new();
            for name in v.into_iter().flat_map(|v| v.iter()) {
                budget.charge(1usize.saturating_add(name.len() / 16))?;
                listed.push(name.to_string());
            }
            Ok(listed)
        };
        let mut routines = Vec::new();
        for (r, routine) in program.routines().into_iter().flat_map(|r| r.iter()).enumerate() {
            let mut v = json!({
                "index": r,
                "type": routine.type_().name().map_or_else(|| routine.type_().0.to_string(), str::to_lowercase),
                "inputs": names(routine.in_tensors())?,
                "outputs": names(routine.out_tensors())?,
            });
            if let Some(tpu) = routine.tpu_routine() {
                // What `routine_section` resolves, through the index of section names.
                let section = tpu.cmdbuf_section().or(tpu.dmabuf_section());
                let is_tpu = routine.type_() == cvimodel::RoutineType::TPU;
                v["section"] = json!(section);
                v["section_index"] = json!(section.filter(|_| is_tpu).and_then(|n| sections_by_name.get(n)));
            }
            if let Some(cpu) = routine.cpu_routine() {
                v["function"] = json!(cpu.function_section());
                v["function_args_bytes"] = json!(cpu.function_args().map_or(0, |a| a.len()));
            }
            routines.push(v);
        }
        let inputs = names(program.input_tensors())?;
        let outputs = names(program.output_tensors())?;
        let mut io = |names: &[String]| -> Result<Vec<Value>, OverBudget> {
            let mut listed = Vec::new();
            for name in names {
                let tensor = by_name.get(name.as_str()).and_then(|&i| tensors.get(i));
                budget.charge(tensor.and_then(|t| t.shape()?.dim()).map_or(0, |d| d.len()))?;
                listed.push(find(name));
            }
            Ok(listed)
        };
        let (input_tensors, output_tensors) = (io(&inputs)?, io(&outputs)?);
        let ports = |listed: &[Value]| listed.iter().map(port).collect::<Vec<_>>();
        io_entries.push(json!({"program": p, "inputs": ports(&input_tensors), "outputs": ports(&output_tensors)}));
        programs.push(json!({
            "index": p,
            "batch_num": program.batch_num(),
            "neuron_size": program.neuron_size(),
            "private_gmem": program.private_gmem(),
            "shared_gmem": program.shared_gmem(),
            "input_tensors": input_tensors,
            "output_tensors": output_tensors,
            "inputs": inputs,
            "outputs": outputs,
            "routines": routines,
            "tensors": tensors.iter().enumerate().map(|(i, t)| tensor_json(i, t)).collect::<Vec<_>>(),
        }));
    }
    let memory = file.memory_usage();
    let warnings = crate::summary::warnings::Warnings::collect(|f| file.for_each_warning(|w| f(warning_text(w))));
    Ok(json!({
        "format": "cvimodel",
        "file_bytes": file.file().len(),
        "needs": [{
            "feature": "cvimodel_version",
            "detail": format!(
                "cvimodel {} (header {}.{}), chip {}, built by tpu-mlir {}",
                version.as_deref().unwrap_or("-"),
                h.major,
                h.minor,
                model.target().unwrap_or("-"),
                model.mlir_version().unwrap_or("-")
            ),
        }],
        "io": io_entries,
        "header": {
            "magic": String::from_utf8_lossy(&h.magic),
            "header_bytes": h.size(),
            "body_size": h.body_size,
            "major": h.major,
            "minor": h.minor,
            "md5": hex(&h.md5),
            "md5_computed": hex(&md5.computed),
            "md5_ok": md5.matches(),
            "chip": h.chip_name(),
            "padding": hex(&h.padding),
            "sections_bytes": file.binary().len(),
        },
        "mlir_version": model.mlir_version(),
        "version": version,
        "name": model.name(),
        "build_time": model.build_time(),
        "target": model.target(),
        "memory": {
            "sections": memory.sections,
            "neuron": memory.neuron,
            "private": memory.private,
            "shared": memory.shared,
            "io": memory.io,
            "total": memory.total(),
            "total_mb": format!("{:.2}", memory.total() as f64 / (1024.0 * 1024.0)),
        },
        "sections": sections,
        "weights": weights_summary(&weights),
        "weight_list": weights,
        "programs": programs,
        "model_rules": file.check(&Options::DEFAULT).err().map_or_else(|| "ok".to_string(), |e| e.to_string()),
        "warnings": warnings.to_json(),
    }))
}

/// The weights in the layout every format's `weights` shares: the WEIGHT section's entries
/// (the file's `weight_list`), their bytes by NumPy's dtype names and their elements. They are all
/// inside the file; cvimodel does not link a weight to the routine that reads it.
fn weights_summary(list: &[Value]) -> Value {
    let mut w = crate::summary::weights::Weights::default();
    for entry in list {
        let size = entry["size"].as_u64().unwrap_or(0);
        w.inside = w.inside.saturating_add(size);
        let elements =
            entry["shape"].as_array().into_iter().flatten().map(|d| d.as_u64().unwrap_or(0)).product::<u64>();
        w.parameters = w.parameters.saturating_add(elements);
        let dtype = match entry["type"].as_str() {
            Some("fp32") => "float32".to_string(),
            Some("bf16") => "bfloat16".to_string(),
            Some(other) => other.to_string(),
            None => "-".to_string(),
        };
        let e = w.by_dtype.entry(dtype).or_default();
        *e = e.saturating_add(size);
    }
    w.to_json()
}

/// Each name's first position among `names` (the runtime's lookups take the first match).
fn first_by_name<'a>(names: impl Iterator<Item = &'a str>) -> HashMap<&'a str, usize> {
    let mut map = HashMap::new();
    for (i, name) in names.enumerate() {
        map.entry(name).or_insert(i);
    }
    map
}

fn md5_of(bytes: &[u8]) -> md5::Digest {
    md5::compute(bytes)
}

/// `flatmodel inspect` on a cvimodel.
pub fn inspect(out: &mut Out, name: &str, bytes: &[u8], as_json: bool) -> Result<Outcome, Failure> {
    let file = match CviModel::parse_structure(bytes) {
        Ok(f) => f,
        Err(e) => return crate::open::report_invalid(out, name, &e.to_string()),
    };
    let s = match summary(&file, &mut Budget::for_file(bytes.len())) {
        Ok(s) => s,
        Err(refused) => return crate::open::report_invalid(out, name, &refused.to_string()),
    };
    if as_json {
        crate::output::write_summary(out, s)?;
    } else {
        print_text(out, name, &s)?;
    }
    Ok(Outcome::Ok)
}

fn print_text(out: &mut Out, name: &str, s: &Value) -> std::io::Result<()> {
    let str_of = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| "-".into());
    let list = |v: &Value| v.as_array().into_iter().flatten().map(str_of).collect::<Vec<_>>().join(",");
    let h = &s["header"];
    writeln!(out, "{name}")?;
    writeln!(out, "  format:          cvimodel (header {}.{}, {} bytes)", h["major"], h["minor"], h["header_bytes"])?;
    writeln!(
        out,
        "  md5:             {} ({})",
        str_of(&h["md5"]),
        if h["md5_ok"] == true { "ok" } else { "MISMATCH" }
    )?;
    writeln!(out, "  mlir version:    {}", str_of(&s["mlir_version"]))?;
    writeln!(out, "  version:         {}", str_of(&s["version"]))?;
    writeln!(out, "  name:            {}", str_of(&s["name"]))?;
    writeln!(out, "  build time:      {}", str_of(&s["build_time"]))?;
    writeln!(out, "  chip:            {} (header {})", str_of(&s["target"]), str_of(&h["chip"]))?;
    let m = &s["memory"];
    writeln!(
        out,
        "  ION memory:      {} MB ({} bytes: sections {}, private {}, shared {}, io {}, neuron {})",
        str_of(&m["total_mb"]),
        m["total"],
        m["sections"],
        m["private"],
        m["shared"],
        m["io"],
        m["neuron"]
    )?;
    writeln!(out, "  model rules:     {}", str_of(&s["model_rules"]))?;
    crate::summary::warnings::Warnings::from_json(&s["warnings"]).print(out, "  warning:         ")?;
    writeln!(out, "  sections:")?;
    writeln!(out, "    ID   TYPE      NAME                     SIZE        OFFSET      FLAGS     MD5")?;
    for sec in s["sections"].as_array().into_iter().flatten() {
        let mut flags = Vec::new();
        if sec["encrypt"] == true {
            flags.push("enc".to_string());
        }
        if sec["compress"] == true {
            flags.push(format!("lz4->{}", sec["decompressed_size"]));
        }
        writeln!(
            out,
            "    {:03}  {:<10}{:<25}{:<12}{:<12}{:<10}{}",
            sec["index"].as_u64().unwrap_or(0),
            str_of(&sec["type"]),
            str_of(&sec["name"]),
            sec["size"].to_string(),
            sec["offset"].to_string(),
            if flags.is_empty() { "-".into() } else { flags.join(",") },
            sec["md5"].as_str().map_or_else(|| str_of(&sec["error"]), str::to_string)
        )?;
    }
    writeln!(out, "  weights:")?;
    writeln!(out, "    ID   OFFSET    SIZE      TYPE    SHAPE               NAME")?;
    for w in s["weight_list"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "    {:03}  {:<10}{:<10}{:<8}{:<20}{}",
            w["index"].as_u64().unwrap_or(0),
            w["offset"].to_string(),
            w["size"].to_string(),
            str_of(&w["type"]),
            w["shape"].to_string(),
            str_of(&w["name"])
        )?;
    }
    for p in s["programs"].as_array().into_iter().flatten() {
        writeln!(out, "  program #{}", p["index"])?;
        writeln!(out, "    batch_num:     {}", p["batch_num"])?;
        if p["neuron_size"].as_u64().unwrap_or(0) > 0 {
            writeln!(out, "    neuron_size:   {}", p["neuron_size"])?;
        }
        writeln!(out, "    private_gmem:  {}", p["private_gmem"])?;
        writeln!(out, "    shared_gmem:   {}", p["shared_gmem"])?;
        for (label, key) in [("input ", "input_tensors"), ("output", "output_tensors")] {
            for t in p[key].as_array().into_iter().flatten() {
                writeln!(
                    out,
                    "    {label}:        {} {} {} ({} @ {})",
                    str_of(&t["name"]),
                    str_of(&t["dtype"]),
                    t["shape"],
                    str_of(&t["region"]),
                    t["offset"]
                )?;
            }
        }
        writeln!(out, "    routines:")?;
        for r in p["routines"].as_array().into_iter().flatten() {
            let what = match (r.get("section"), r.get("function")) {
                (Some(sec), _) => format!("section {}", str_of(sec)),
                (None, Some(f)) => format!("function {} ({} bytes of args)", str_of(f), r["function_args_bytes"]),
                _ => "-".into(),
            };
            writeln!(
                out,
                "      #{:02} {}: {} -> {}; {what}",
                r["index"].as_u64().unwrap_or(0),
                str_of(&r["type"]),
                list(&r["inputs"]),
                list(&r["outputs"])
            )?;
        }
        writeln!(out, "    tensors:")?;
        writeln!(out, "      ID   OFFSET      TYPE  SHAPE               QSCALE     MEM     NAME")?;
        for t in p["tensors"].as_array().into_iter().flatten() {
            let qscale = t["qscale"].as_f64().map_or_else(|| "-".into(), |q| format!("{q:.6}"));
            writeln!(
                out,
                "      {:03}  {:<12}{:<6}{:<20}{:<11}{:<8}{}",
                t["index"].as_u64().unwrap_or(0),
                t["offset"].as_u64().map_or_else(|| "-".into(), |o| o.to_string()),
                str_of(&t["dtype"]),
                t["shape"].to_string(),
                qscale,
                str_of(&t["region"]),
                str_of(&t["name"])
            )?;
        }
    }
    Ok(())
}

/// `flatmodel dump` on a cvimodel: the flatbuffer body's root table.
pub fn root(bytes: &[u8]) -> Result<crate::open::Root<'_>, String> {
    let file = CviModel::parse_structure(bytes).map_err(|e| e.to_string())?;
    Ok(Dumpable::new(file.model()))
}

/// `flatmodel extract` on a cvimodel: `section:NAME` (the stored payload), `section-data:NAME`
/// (decompressed when LZ4) or `weight:NAME`. The outer error is a usage error, the inner one
/// says the file is invalid.
pub fn extract<'a>(name: &str, bytes: &'a [u8], what: &str) -> Result<Result<Cow<'a, [u8]>, String>, Failure> {
    let file = match CviModel::parse(bytes) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let section_index = |key: &str| -> Result<usize, Failure> {
        file.find_section(key).map(|(i, _)| i).ok_or_else(|| Failure::new(format!("{name}: no section named '{key}'")))
    };
    let data = match what.split_once(':') {
        Some(("section", key)) => {
            let i = section_index(key)?;
            file.section_at(i).map(|r| Cow::Borrowed(r.payload)).map_err(|e| e.to_string())
        }
        Some(("section-data", key)) => {
            let i = section_index(key)?;
            file.decompress_section(i).map_err(|e| e.to_string())
        }
        Some(("weight", key)) => {
            let w = file.weight(key).ok_or_else(|| Failure::new(format!("{name}: no weight named '{key}'")))?;
            match file.weight_section() {
                Some((i, s)) if s.is_lz4() => {
                    let data = file.decompress_section(i).map_err(|e| Failure::new(format!("{name}: {e}")))?;
                    let start = usize::try_from(w.address().offset).unwrap_or(usize::MAX);
                    let size = usize::try_from(w.size()).unwrap_or(usize::MAX);
                    let slice = data.get(start..).and_then(|d| d.get(..size));
                    slice
                        .map(|d| Cow::Owned(d.to_vec()))
                        .ok_or_else(|| format!("weight '{key}' lies outside the WEIGHT section"))
                }
                _ => file.weight_data(&w).map(Cow::Borrowed).map_err(|e| e.to_string()),
            }
        }
        _ => {
            return Err(Failure::new(format!(
                "'{what}': a cvimodel takes section:NAME, section-data:NAME or weight:NAME"
            )))
        }
    };
    Ok(data)
}
