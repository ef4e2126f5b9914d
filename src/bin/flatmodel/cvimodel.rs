//! The commands for Sophgo cvimodel files: `verify`, `inspect` (what `model_tool --info`
//! shows), `dump` (the flatbuffer body) and `extract` (`section:NAME`, `section-data:NAME`,
//! `weight:NAME`).

use crate::{Failure, Outcome};
use flatmodel::cvimodel::{self, CviModel, DType, MemoryRegion, SectionType, Warning};
use flatmodel::schema::TableType;
use flatmodel::verify::Options;
use serde_json::{json, Value};
use std::borrow::Cow;
use std::collections::HashMap;

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

/// Full verification: header, body, the rules, and every LZ4 section checked to decompress to
/// its `decompressed_size` (without inflating it). A short description, or why the file is
/// invalid.
pub fn check(bytes: &[u8]) -> Result<String, String> {
    let file = CviModel::parse(bytes).map_err(|e| e.to_string())?;
    let mut warnings = 0usize;
    file.for_each_warning(|_| warnings += 1);
    let h = file.header();
    Ok(format!(
        "cvimodel v{}.{}, chip {}, {} program(s), {} section(s), md5 {}, {warnings} warning(s)",
        h.major,
        h.minor,
        h.chip_name().unwrap_or("-"),
        file.model().programs().map_or(0, |p| p.len()),
        file.model().sections().map_or(0, |s| s.len()),
        if file.md5_check().matches() { "ok" } else { "mismatch" },
    ))
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
        "size": t.size(),
        "overwrote": t.overwrote(),
    })
}

/// The summary of a structurally valid cvimodel: what `model_tool --info` prints, and more.
pub fn summary(file: &CviModel<'_>) -> Value {
    let model = file.model();
    let h = file.header();
    let version = model.version().map(|v| format!("{}.{}.{}", v.major_(), v.minor_(), v.sub_minor()));
    let md5 = file.md5_check();
    let sections_by_name = first_by_name(model.sections().into_iter().flat_map(|s| s.iter()).map(|s| s.name()));
    let sections: Vec<Value> = model
        .sections()
        .into_iter()
        .flat_map(|s| s.iter())
        .enumerate()
        .map(|(i, s)| {
            let resolved = file.section_at(i);
            json!({
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
            })
        })
        .collect();
    let weights: Vec<Value> = model
        .weight_map()
        .into_iter()
        .flat_map(|w| w.iter())
        .enumerate()
        .map(|(i, w)| {
            let dims: Vec<i64> = w.shape().and_then(|s| s.dim()).map(|d| d.iter().collect()).unwrap_or_default();
            json!({
                "index": i,
                "name": w.name(),
                "offset": w.address().offset,
                "tagged": w.address().tagged,
                "size": w.size(),
                "type": dtype_name(w.type_()),
                "shape": dims,
            })
        })
        .collect();
    let programs: Vec<Value> = model
        .programs()
        .into_iter()
        .flat_map(|p| p.iter())
        .enumerate()
        .map(|(p, program)| {
            let tensors: Vec<cvimodel::Tensor<'_>> =
                program.tensor_map().map(|t| t.iter().collect()).unwrap_or_default();
            let by_name = first_by_name(tensors.iter().map(|t| t.name()));
            let find = |name: &str| -> Value {
                by_name
                    .get(name)
                    .and_then(|&i| Some((i, tensors.get(i)?)))
                    .map_or_else(|| json!({"name": name, "missing": true}), |(i, t)| tensor_json(i, t))
            };
            let names = |v: Option<flatmodel::wire::StrVector<'_>>| -> Vec<String> {
                v.map(|v| v.iter().map(str::to_string).collect()).unwrap_or_default()
            };
            let routines: Vec<Value> = program
                .routines()
                .into_iter()
                .flat_map(|r| r.iter())
                .enumerate()
                .map(|(r, routine)| {
                    let mut v = json!({
                        "index": r,
                        "type": routine.type_().name().map_or_else(|| routine.type_().0.to_string(), str::to_lowercase),
                        "inputs": names(routine.in_tensors()),
                        "outputs": names(routine.out_tensors()),
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
                    v
                })
                .collect();
            let inputs = names(program.input_tensors());
            let outputs = names(program.output_tensors());
            json!({
                "index": p,
                "batch_num": program.batch_num(),
                "neuron_size": program.neuron_size(),
                "private_gmem": program.private_gmem(),
                "shared_gmem": program.shared_gmem(),
                "input_tensors": inputs.iter().map(|n| find(n)).collect::<Vec<_>>(),
                "output_tensors": outputs.iter().map(|n| find(n)).collect::<Vec<_>>(),
                "inputs": inputs,
                "outputs": outputs,
                "routines": routines,
                "tensors": tensors.iter().enumerate().map(|(i, t)| tensor_json(i, t)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let memory = file.memory_usage();
    let mut warnings = Vec::new();
    file.for_each_warning(|w| warnings.push(warning_text(w)));
    json!({
        "format": "cvimodel",
        "file_bytes": file.file().len(),
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
        "weights": weights,
        "programs": programs,
        "model_rules": file.check(&Options::DEFAULT).err().map_or_else(|| "ok".to_string(), |e| e.to_string()),
        "warnings": warnings,
    })
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
pub fn inspect(name: &str, bytes: &[u8], as_json: bool) -> Result<Outcome, Failure> {
    let file = match CviModel::parse_structure(bytes) {
        Ok(f) => f,
        Err(e) => {
            println!("{name}: invalid: {e}");
            return Ok(Outcome::Invalid);
        }
    };
    let s = summary(&file);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print_text(name, &s);
    }
    Ok(Outcome::Ok)
}

fn print_text(name: &str, s: &Value) {
    let str_of = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| "-".into());
    let list = |v: &Value| v.as_array().into_iter().flatten().map(str_of).collect::<Vec<_>>().join(",");
    let h = &s["header"];
    println!("{name}");
    println!("  format:          cvimodel (header {}.{}, {} bytes)", h["major"], h["minor"], h["header_bytes"]);
    println!("  md5:             {} ({})", str_of(&h["md5"]), if h["md5_ok"] == true { "ok" } else { "MISMATCH" });
    println!("  mlir version:    {}", str_of(&s["mlir_version"]));
    println!("  version:         {}", str_of(&s["version"]));
    println!("  name:            {}", str_of(&s["name"]));
    println!("  build time:      {}", str_of(&s["build_time"]));
    println!("  chip:            {} (header {})", str_of(&s["target"]), str_of(&h["chip"]));
    let m = &s["memory"];
    println!(
        "  ION memory:      {} MB ({} bytes: sections {}, private {}, shared {}, io {}, neuron {})",
        str_of(&m["total_mb"]),
        m["total"],
        m["sections"],
        m["private"],
        m["shared"],
        m["io"],
        m["neuron"]
    );
    println!("  model rules:     {}", str_of(&s["model_rules"]));
    for w in s["warnings"].as_array().into_iter().flatten() {
        println!("  warning:         {}", str_of(w));
    }
    println!("  sections:");
    println!("    ID   TYPE      NAME                     SIZE        OFFSET      FLAGS     MD5");
    for sec in s["sections"].as_array().into_iter().flatten() {
        let mut flags = Vec::new();
        if sec["encrypt"] == true {
            flags.push("enc".to_string());
        }
        if sec["compress"] == true {
            flags.push(format!("lz4->{}", sec["decompressed_size"]));
        }
        println!(
            "    {:03}  {:<10}{:<25}{:<12}{:<12}{:<10}{}",
            sec["index"].as_u64().unwrap_or(0),
            str_of(&sec["type"]),
            str_of(&sec["name"]),
            sec["size"].to_string(),
            sec["offset"].to_string(),
            if flags.is_empty() { "-".into() } else { flags.join(",") },
            sec["md5"].as_str().map_or_else(|| str_of(&sec["error"]), str::to_string)
        );
    }
    println!("  weights:");
    println!("    ID   OFFSET    SIZE      TYPE    SHAPE               NAME");
    for w in s["weights"].as_array().into_iter().flatten() {
        println!(
            "    {:03}  {:<10}{:<10}{:<8}{:<20}{}",
            w["index"].as_u64().unwrap_or(0),
            w["offset"].to_string(),
            w["size"].to_string(),
            str_of(&w["type"]),
            w["shape"].to_string(),
            str_of(&w["name"])
        );
    }
    for p in s["programs"].as_array().into_iter().flatten() {
        println!("  program #{}", p["index"]);
        println!("    batch_num:     {}", p["batch_num"]);
        if p["neuron_size"].as_u64().unwrap_or(0) > 0 {
            println!("    neuron_size:   {}", p["neuron_size"]);
        }
        println!("    private_gmem:  {}", p["private_gmem"]);
        println!("    shared_gmem:   {}", p["shared_gmem"]);
        for (label, key) in [("input ", "input_tensors"), ("output", "output_tensors")] {
            for t in p[key].as_array().into_iter().flatten() {
                println!(
                    "    {label}:        {} {} {} ({} @ {})",
                    str_of(&t["name"]),
                    str_of(&t["dtype"]),
                    t["shape"],
                    str_of(&t["region"]),
                    t["offset"]
                );
            }
        }
        println!("    routines:");
        for r in p["routines"].as_array().into_iter().flatten() {
            let what = match (r.get("section"), r.get("function")) {
                (Some(sec), _) => format!("section {}", str_of(sec)),
                (None, Some(f)) => format!("function {} ({} bytes of args)", str_of(f), r["function_args_bytes"]),
                _ => "-".into(),
            };
            println!(
                "      #{:02} {}: {} -> {}; {what}",
                r["index"].as_u64().unwrap_or(0),
                str_of(&r["type"]),
                list(&r["inputs"]),
                list(&r["outputs"])
            );
        }
        println!("    tensors:");
        println!("      ID   OFFSET      TYPE  SHAPE               QSCALE     MEM     NAME");
        for t in p["tensors"].as_array().into_iter().flatten() {
            let qscale = t["qscale"].as_f64().map_or_else(|| "-".into(), |q| format!("{q:.6}"));
            println!(
                "      {:03}  {:<12}{:<6}{:<20}{:<11}{:<8}{}",
                t["index"].as_u64().unwrap_or(0),
                t["offset"].as_u64().map_or_else(|| "-".into(), |o| o.to_string()),
                str_of(&t["dtype"]),
                t["shape"].to_string(),
                qscale,
                str_of(&t["region"]),
                str_of(&t["name"])
            );
        }
    }
}

/// `flatmodel dump` on a cvimodel: the flatbuffer body as JSON.
pub fn dump(bytes: &[u8], text: &mut String) -> Result<(), String> {
    let file = CviModel::parse_structure(bytes).map_err(|e| e.to_string())?;
    let model = file.model();
    flatmodel::dump::dump_table(text, model.raw(), cvimodel::Model::desc(), &Options::DEFAULT)
        .map_err(|e| e.to_string())
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
        file.find_section(key).map(|(i, _)| i).ok_or_else(|| Failure(format!("{name}: no section named '{key}'")))
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
            let w = file.weight(key).ok_or_else(|| Failure(format!("{name}: no weight named '{key}'")))?;
            match file.weight_section() {
                Some((i, s)) if s.is_lz4() => {
                    let data = file.decompress_section(i).map_err(|e| Failure(format!("{name}: {e}")))?;
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
        _ => return Err(Failure(format!("'{what}': a cvimodel takes section:NAME, section-data:NAME or weight:NAME"))),
    };
    Ok(data)
}
