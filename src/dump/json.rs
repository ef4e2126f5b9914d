//! The JSON writer.

use crate::container::Budget;
use crate::schema::{
    EnumDesc, FieldDesc, FieldKind, ScalarType, ScalarValue, StructDesc, StructFieldKind, TableDesc, TableType,
    UnionDesc,
};
use crate::verify::Options;
use crate::wire::{self, FromTable, FromUnion, Scalar, Seal, Table, UnionValue};
use core::fmt::{self, Write};

/// Why a dump stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DumpError {
    /// The writer failed.
    #[error("the output could not be written")]
    Write,
    /// The dump would print more values than the input's apparent-size budget allows.
    #[error("the dump would be disproportionate to the input (shared subtrees)")]
    TooLarge,
}

impl From<fmt::Error> for DumpError {
    fn from(_: fmt::Error) -> Self {
        DumpError::Write
    }
}

/// A verified table and the descriptor of its type: what [`dump_table`] prints.
///
/// Made only from a view, so the descriptor the dump follows is the one the table was verified
/// against.
#[derive(Clone, Copy)]
pub struct Dumpable<'a> {
    table: Table<'a>,
    desc: &'static TableDesc,
}

impl<'a> Dumpable<'a> {
    /// The table `view` reads, with its type's descriptor.
    pub fn new<T: FromTable<'a> + TableType>(view: T) -> Self {
        Dumpable { table: view.as_table(), desc: T::desc() }
    }
}

impl core::fmt::Debug for Dumpable<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}@{}", self.desc.name, self.table.position())
    }
}

/// Writes `root` as JSON to `out`.
///
/// The dump prints at most the apparent-size budget `options` gives the buffer's length in
/// values.
pub fn dump_table<W: Write>(out: &mut W, root: Dumpable<'_>, options: &Options) -> Result<(), DumpError> {
    let Dumpable { table, desc } = root;
    // The budget's own error is not reported: a spent budget is `DumpError::TooLarge`.
    static DUMP: &str = "dump";
    let budget = Budget::new(options, table.buffer().len(), &DUMP);
    let mut d = Dumper { out, budget, indent: 0 };
    d.table(table, desc)?;
    d.out.write_char('\n')?;
    Ok(())
}

struct Dumper<'w, W: Write> {
    out: &'w mut W,
    budget: Budget,
    indent: usize,
}

/// A union element of unknown type, kept raw.
#[derive(Clone, Copy)]
struct RawUnion<'a>(u8, UnionValue<'a>);

impl<'a> FromUnion<'a> for RawUnion<'a> {
    fn from_union(tag: u8, value: UnionValue<'a>, _: Seal) -> Self {
        RawUnion(tag, value)
    }
}

impl<W: Write> Dumper<'_, W> {
    fn charge(&mut self, units: usize) -> Result<(), DumpError> {
        let units = u64::try_from(units).unwrap_or(u64::MAX).saturating_add(1);
        self.budget.charge(units, 0).map_err(|_| DumpError::TooLarge)
    }

    fn newline(&mut self) -> fmt::Result {
        self.out.write_char('\n')?;
        for _ in 0..self.indent {
            self.out.write_str("  ")?;
        }
        Ok(())
    }

    /// Opens `{` or `[`; `first` tracks whether a comma is needed.
    fn open(&mut self, c: char) -> fmt::Result {
        self.indent = self.indent.saturating_add(1);
        self.out.write_char(c)
    }

    fn close(&mut self, c: char) -> fmt::Result {
        self.indent = self.indent.saturating_sub(1);
        self.newline()?;
        self.out.write_char(c)
    }

    fn key(&mut self, first: &mut bool, name: &str) -> fmt::Result {
        if !*first {
            self.out.write_char(',')?;
        }
        *first = false;
        self.newline()?;
        write_string(self.out, name)?;
        self.out.write_str(": ")
    }

    fn key_suffixed(&mut self, first: &mut bool, name: &str, suffix: &str) -> fmt::Result {
        if !*first {
            self.out.write_char(',')?;
        }
        *first = false;
        self.newline()?;
        write!(self.out, "\"{}{}\": ", Escaped(name), suffix)
    }

    fn item(&mut self, first: &mut bool) -> fmt::Result {
        if !*first {
            self.out.write_char(',')?;
        }
        *first = false;
        self.newline()
    }

    fn table(&mut self, t: Table<'_>, desc: &TableDesc) -> Result<(), DumpError> {
        self.charge(desc.fields.len())?;
        self.open('{')?;
        let mut first = true;
        for field in desc.fields {
            self.field(&mut first, t, field)?;
        }
        self.close('}')?;
        Ok(())
    }

    fn field(&mut self, first: &mut bool, t: Table<'_>, f: &FieldDesc) -> Result<(), DumpError> {
        let slot = f.slot;
        let absent_scalar = !t.has(slot) && matches!(f.kind, FieldKind::Scalar(_) | FieldKind::Enum(..));
        if f.deprecated && absent_scalar {
            return Ok(()); // flatc writes defaults only for live fields
        }
        match f.kind {
            FieldKind::Scalar(default) => {
                self.key(first, f.name)?;
                self.scalar_field(t, slot, default)?;
            }
            FieldKind::Enum(e, default) => {
                self.key(first, f.name)?;
                let value = read_scalar_field(t, slot, default);
                self.enum_value(e, value)?;
            }
            FieldKind::String => {
                if let Some(s) = t.string(slot) {
                    self.key(first, f.name)?;
                    self.charge(s.len() / 16)?;
                    write_string(self.out, s)?;
                }
            }
            FieldKind::Table(desc) => {
                if let Some(sub) = t.raw_table(slot) {
                    self.key(first, f.name)?;
                    self.table(sub, desc())?;
                }
            }
            FieldKind::Struct(desc) => {
                if let Some(bytes) = t.field(slot).and_then(|p| t.buffer().get(p..)).and_then(|b| b.get(..desc.size)) {
                    self.key(first, f.name)?;
                    self.structure(bytes, desc)?;
                }
            }
            FieldKind::Vector(ty) => {
                if t.has(slot) {
                    self.key(first, f.name)?;
                    self.scalar_vector(t, slot, ty, None)?;
                }
            }
            FieldKind::EnumVector(e) => {
                if t.has(slot) {
                    self.key(first, f.name)?;
                    self.scalar_vector(t, slot, e.repr, Some(e))?;
                }
            }
            FieldKind::StringVector => {
                if let Some(v) = t.string_vector(slot) {
                    self.key(first, f.name)?;
                    self.charge(v.len())?;
                    self.open('[')?;
                    let mut f2 = true;
                    for s in v.iter() {
                        self.item(&mut f2)?;
                        self.charge(s.len() / 16)?;
                        write_string(self.out, s)?;
                    }
                    self.close(']')?;
                }
            }
            FieldKind::TableVector(desc) => {
                if let Some(v) = t.table_vector::<Table<'_>>(slot) {
                    self.key(first, f.name)?;
                    self.charge(v.len())?;
                    self.open('[')?;
                    let mut f2 = true;
                    let desc = desc();
                    for sub in v.iter() {
                        self.item(&mut f2)?;
                        self.table(sub, desc)?;
                    }
                    self.close(']')?;
                }
            }
            FieldKind::StructVector(desc) => {
                if let Some((bytes, len)) = t.raw_vector(slot, desc.size) {
                    self.key(first, f.name)?;
                    self.charge(len)?;
                    self.open('[')?;
                    let mut f2 = true;
                    for bytes in bytes.chunks_exact(desc.size.max(1)) {
                        self.item(&mut f2)?;
                        self.structure(bytes, desc)?;
                    }
                    self.close(']')?;
                }
            }
            FieldKind::Union(u) => {
                let u = u();
                let tag = t.union_tag(slot);
                self.key_suffixed(first, f.name, "_type")?;
                self.union_tag(u, tag)?;
                // Only a member this schema names was verified, so only then look inside.
                if let Some((_, desc)) = u.variant(tag) {
                    if let Some(value) = t.raw_table(slot) {
                        self.key(first, f.name)?;
                        self.table(value, desc)?;
                    }
                }
            }
            FieldKind::UnionVector(u) => {
                let u = u();
                if let Some(types) = t.vector::<u8>(slot.wrapping_sub(1)) {
                    self.key_suffixed(first, f.name, "_type")?;
                    self.charge(types.len())?;
                    self.open('[')?;
                    let mut f2 = true;
                    for tag in types.iter() {
                        self.item(&mut f2)?;
                        self.union_tag(u, tag)?;
                    }
                    self.close(']')?;
                }
                if let Some(values) = t.union_vector::<RawUnion<'_>>(slot) {
                    self.key(first, f.name)?;
                    self.open('[')?;
                    let mut f2 = true;
                    for RawUnion(tag, value) in values.iter() {
                        self.item(&mut f2)?;
                        let known = u.variant(tag).and_then(|(_, desc)| Some((desc, value.table::<Table<'_>>()?)));
                        match known {
                            Some((desc, sub)) => self.table(sub, desc)?,
                            None => self.out.write_str("null")?,
                        }
                    }
                    self.close(']')?;
                }
            }
        }
        Ok(())
    }

    fn union_tag(&mut self, u: &UnionDesc, tag: u8) -> fmt::Result {
        match (tag, u.variant(tag)) {
            (0, _) => self.out.write_str("\"NONE\""),
            (_, Some((name, _))) => write_string(self.out, name),
            (_, None) => write!(self.out, "{tag}"),
        }
    }

    fn scalar_field(&mut self, t: Table<'_>, slot: u16, default: ScalarValue) -> fmt::Result {
        let value = read_scalar_field(t, slot, default);
        write_scalar(self.out, value)
    }

    fn enum_value(&mut self, e: &EnumDesc, value: ScalarValue) -> fmt::Result {
        match value.as_i128().and_then(|v| i64::try_from(v).ok()).and_then(|v| e.name_of(v)) {
            Some(name) => write_string(self.out, name),
            None => write_scalar(self.out, value),
        }
    }

    fn scalar_vector(
        &mut self,
        t: Table<'_>,
        slot: u16,
        ty: ScalarType,
        e: Option<&EnumDesc>,
    ) -> Result<(), DumpError> {
        macro_rules! each {
            ($t:ty, $variant:ident) => {{
                let v = t.vector::<$t>(slot).unwrap_or_else(wire::Vector::empty);
                self.charge(v.len())?;
                self.open('[')?;
                let mut first = true;
                for x in v.iter() {
                    self.item(&mut first)?;
                    match e {
                        Some(e) => self.enum_value(e, ScalarValue::$variant(x))?,
                        None => write_scalar(self.out, ScalarValue::$variant(x))?,
                    }
                }
                self.close(']')?;
            }};
        }
        match ty {
            ScalarType::Bool => each!(bool, bool),
            ScalarType::U8 => each!(u8, u8),
            ScalarType::I8 => each!(i8, i8),
            ScalarType::U16 => each!(u16, u16),
            ScalarType::I16 => each!(i16, i16),
            ScalarType::U32 => each!(u32, u32),
            ScalarType::I32 => each!(i32, i32),
            ScalarType::U64 => each!(u64, u64),
            ScalarType::I64 => each!(i64, i64),
            ScalarType::F32 => each!(f32, f32),
            ScalarType::F64 => each!(f64, f64),
        }
        Ok(())
    }

    fn structure(&mut self, bytes: &[u8], desc: &StructDesc) -> Result<(), DumpError> {
        self.charge(desc.fields.len())?;
        self.open('{')?;
        let mut first = true;
        for f in desc.fields {
            let at = bytes.get(f.offset..).unwrap_or(&[]);
            self.key(&mut first, f.name)?;
            match f.kind {
                StructFieldKind::Scalar(ty) => write_scalar(self.out, read_at(at, ty))?,
                StructFieldKind::Enum(e) => {
                    let value = read_at(at, e.repr);
                    self.enum_value(e, value)?;
                }
                StructFieldKind::Struct(inner) => self.structure(at, inner)?,
                StructFieldKind::Array(ty, n) => {
                    self.open('[')?;
                    let mut f2 = true;
                    for i in 0..n {
                        self.item(&mut f2)?;
                        let elem = i.checked_mul(ty.size()).and_then(|o| at.get(o..)).unwrap_or(&[]);
                        write_scalar(self.out, read_at(elem, ty))?;
                    }
                    self.close(']')?;
                }
            }
        }
        self.close('}')?;
        Ok(())
    }
}

fn read_scalar_field(t: Table<'_>, slot: u16, default: ScalarValue) -> ScalarValue {
    match default {
        ScalarValue::bool(d) => ScalarValue::bool(t.scalar(slot, d)),
        ScalarValue::u8(d) => ScalarValue::u8(t.scalar(slot, d)),
        ScalarValue::i8(d) => ScalarValue::i8(t.scalar(slot, d)),
        ScalarValue::u16(d) => ScalarValue::u16(t.scalar(slot, d)),
        ScalarValue::i16(d) => ScalarValue::i16(t.scalar(slot, d)),
        ScalarValue::u32(d) => ScalarValue::u32(t.scalar(slot, d)),
        ScalarValue::i32(d) => ScalarValue::i32(t.scalar(slot, d)),
        ScalarValue::u64(d) => ScalarValue::u64(t.scalar(slot, d)),
        ScalarValue::i64(d) => ScalarValue::i64(t.scalar(slot, d)),
        ScalarValue::f32(d) => ScalarValue::f32(t.scalar(slot, d)),
        ScalarValue::f64(d) => ScalarValue::f64(t.scalar(slot, d)),
    }
}

fn read_at(bytes: &[u8], ty: ScalarType) -> ScalarValue {
    fn get<T: Scalar + Default>(bytes: &[u8]) -> T {
        wire::read_scalar(bytes, 0).unwrap_or_else(|| wire::broken(T::default()))
    }
    match ty {
        ScalarType::Bool => ScalarValue::bool(get(bytes)),
        ScalarType::U8 => ScalarValue::u8(get(bytes)),
        ScalarType::I8 => ScalarValue::i8(get(bytes)),
        ScalarType::U16 => ScalarValue::u16(get(bytes)),
        ScalarType::I16 => ScalarValue::i16(get(bytes)),
        ScalarType::U32 => ScalarValue::u32(get(bytes)),
        ScalarType::I32 => ScalarValue::i32(get(bytes)),
        ScalarType::U64 => ScalarValue::u64(get(bytes)),
        ScalarType::I64 => ScalarValue::i64(get(bytes)),
        ScalarType::F32 => ScalarValue::f32(get(bytes)),
        ScalarType::F64 => ScalarValue::f64(get(bytes)),
    }
}

/// Writes a scalar as JSON: integers exactly, floats in their shortest round-trip form.
pub(crate) fn write_scalar<W: Write>(out: &mut W, v: ScalarValue) -> fmt::Result {
    match v {
        ScalarValue::bool(b) => out.write_str(if b { "true" } else { "false" }),
        ScalarValue::f32(x) => write_float(out, f64::from(x), x.is_finite(), |o| write!(o, "{x:?}")),
        ScalarValue::f64(x) => write_float(out, x, x.is_finite(), |o| write!(o, "{x:?}")),
        other => match other.as_i128() {
            Some(i) => write!(out, "{i}"),
            None => out.write_str("0"),
        },
    }
}

fn write_float<W: Write>(
    out: &mut W,
    x: f64,
    finite: bool,
    shortest: impl FnOnce(&mut W) -> fmt::Result,
) -> fmt::Result {
    if !finite {
        return out.write_str(if x.is_nan() {
            "nan"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        });
    }
    shortest(out)
}

/// Writes `s` as a JSON string.
pub(crate) fn write_string<W: Write>(out: &mut W, s: &str) -> fmt::Result {
    write!(out, "\"{}\"", Escaped(s))
}

struct Escaped<'s>(&'s str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(|c: char| c == '"' || c == '\\' || c < ' ') {
            let (plain, tail) = rest.split_at(i);
            f.write_str(plain)?;
            let mut chars = tail.chars();
            match chars.next() {
                Some('"') => f.write_str("\\\"")?,
                Some('\\') => f.write_str("\\\\")?,
                Some('\n') => f.write_str("\\n")?,
                Some('\t') => f.write_str("\\t")?,
                Some('\r') => f.write_str("\\r")?,
                Some(c) => write!(f, "\\u{:04x}", u32::from(c))?,
                None => {}
            }
            rest = chars.as_str();
        }
        f.write_str(rest)
    }
}
