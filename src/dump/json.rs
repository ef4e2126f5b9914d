//! The JSON writer, generic over where the schema's description comes from ([`Describe`]).

use super::describe::{Compiled, Describe, Inline, Kind, Member};
use crate::container::Budget;
use crate::schema::{ScalarType, ScalarValue, TableDesc, TableType};
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

    /// The verified buffer the table lives in.
    pub fn buffer(&self) -> &'a [u8] {
        self.table.buffer()
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
    dump_with(out, &Compiled, root.table, root.desc, options)
}

/// Writes `table`, verified as table type `ty` of `schema`, as JSON to `out`: the one dump,
/// whichever [`Describe`] says what the table holds. The caller guarantees that `table` was
/// verified against the layout made from the same description.
pub(crate) fn dump_with<W: Write, S: Describe>(
    out: &mut W,
    schema: &S,
    table: Table<'_>,
    ty: S::Table,
    options: &Options,
) -> Result<(), DumpError> {
    // The budget's own error is not reported: a spent budget is `DumpError::TooLarge`.
    static DUMP: &str = "dump";
    let budget = Budget::new(options, table.buffer().len(), &DUMP);
    let mut d = Dumper { out, schema, budget, indent: 0 };
    d.table(table, ty)?;
    d.out.write_char('\n')?;
    Ok(())
}

struct Dumper<'w, W: Write, S> {
    out: &'w mut W,
    schema: &'w S,
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

impl<W: Write, S: Describe> Dumper<'_, W, S> {
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

    fn table(&mut self, t: Table<'_>, ty: S::Table) -> Result<(), DumpError> {
        let schema = self.schema;
        self.charge(schema.field_count(ty))?;
        self.open('{')?;
        let mut first = true;
        for field in schema.fields(ty) {
            self.field(&mut first, t, field)?;
        }
        self.close('}')?;
        Ok(())
    }

    fn field(&mut self, first: &mut bool, t: Table<'_>, f: super::describe::Field<'_, S>) -> Result<(), DumpError> {
        let slot = f.slot;
        let absent_scalar = !t.has(slot) && matches!(f.kind, Kind::Scalar(..) | Kind::Enum(..));
        if f.deprecated && absent_scalar {
            return Ok(()); // flatc writes defaults only for live fields
        }
        match f.kind {
            Kind::Scalar(ty, default) => {
                self.key(first, f.name)?;
                match read_scalar_field(t, slot, ty, default) {
                    Some(value) => write_scalar(self.out, value)?,
                    None => self.out.write_str("null")?,
                }
            }
            Kind::Enum(e, default) => {
                self.key(first, f.name)?;
                let repr = self.schema.enum_repr(e);
                match read_scalar_field(t, slot, repr, default) {
                    Some(value) => self.enum_value(e, value)?,
                    None => self.out.write_str("null")?,
                }
            }
            Kind::String => {
                if let Some(s) = t.string(slot) {
                    self.key(first, f.name)?;
                    self.charge(s.len() / 16)?;
                    write_string(self.out, s)?;
                }
            }
            Kind::Table(desc) => {
                if let Some(sub) = t.raw_table(slot) {
                    self.key(first, f.name)?;
                    self.table(sub, desc)?;
                }
            }
            Kind::Struct(desc) => {
                let size = self.schema.struct_size(desc);
                if let Some(bytes) = t.field(slot).and_then(|p| t.buffer().get(p..)).and_then(|b| b.get(..size)) {
                    self.key(first, f.name)?;
                    self.structure(bytes, desc)?;
                }
            }
            Kind::Vector(ty) => {
                if t.has(slot) {
                    self.key(first, f.name)?;
                    self.scalar_vector(t, slot, ty, None)?;
                }
            }
            Kind::EnumVector(e) => {
                if t.has(slot) {
                    self.key(first, f.name)?;
                    let repr = self.schema.enum_repr(e);
                    self.scalar_vector(t, slot, repr, Some(e))?;
                }
            }
            Kind::StringVector => {
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
            Kind::TableVector(desc) => {
                if let Some(v) = t.table_vector::<Table<'_>>(slot) {
                    self.key(first, f.name)?;
                    self.charge(v.len())?;
                    self.open('[')?;
                    let mut f2 = true;
                    for sub in v.iter() {
                        self.item(&mut f2)?;
                        self.table(sub, desc)?;
                    }
                    self.close(']')?;
                }
            }
            Kind::StructVector(desc) => {
                let size = self.schema.struct_size(desc);
                if let Some((bytes, len)) = t.raw_vector(slot, size) {
                    self.key(first, f.name)?;
                    self.charge(len)?;
                    self.open('[')?;
                    let mut f2 = true;
                    for bytes in bytes.chunks_exact(size.max(1)) {
                        self.item(&mut f2)?;
                        self.structure(bytes, desc)?;
                    }
                    self.close(']')?;
                }
            }
            Kind::Union(u) => {
                let tag = t.union_tag(slot);
                self.key_suffixed(first, f.name, "_type")?;
                self.union_tag(u, tag)?;
                // Only a member this schema names was verified, so only then look inside.
                if let Some((_, member)) = self.schema.member(u, tag) {
                    if let Some(at) = t.field(slot) {
                        self.key(first, f.name)?;
                        self.member(t.buffer(), at, member)?;
                    }
                }
            }
            Kind::UnionVector(u) => {
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
                        match self.schema.member(u, tag) {
                            Some((_, member)) => self.member_value(value, member)?,
                            None => self.out.write_str("null")?,
                        }
                    }
                    self.close(']')?;
                }
            }
            Kind::Nested(root) => {
                let nested = t.raw_vector(slot, 1).and_then(|(bytes, _)| {
                    let pos = wire::root_position(bytes)?;
                    Table::verified(bytes, pos)
                });
                if let Some(nested) = nested {
                    self.key(first, f.name)?;
                    self.table(nested, root)?;
                }
            }
        }
        Ok(())
    }

    /// The value of a union member whose offset is at `at` in `buf`.
    fn member(&mut self, buf: &[u8], at: usize, member: Member<S>) -> Result<(), DumpError> {
        let Some(target) = wire::read_uoffset(buf, at) else {
            return Ok(self.out.write_str("null")?);
        };
        self.member_at(buf, target, member)
    }

    /// A union vector's element.
    fn member_value(&mut self, value: UnionValue<'_>, member: Member<S>) -> Result<(), DumpError> {
        match value.raw() {
            Some((buf, target)) => self.member_at(buf, target, member),
            None => Ok(self.out.write_str("null")?),
        }
    }

    /// A union member's value at `target` in `buf`.
    fn member_at(&mut self, buf: &[u8], target: usize, member: Member<S>) -> Result<(), DumpError> {
        match member {
            Member::Table(ty) => match Table::verified(buf, target) {
                Some(sub) => self.table(sub, ty),
                None => Ok(self.out.write_str("null")?),
            },
            Member::Struct(s) => {
                let size = self.schema.struct_size(s);
                match buf.get(target..).and_then(|b| b.get(..size)) {
                    Some(bytes) => self.structure(bytes, s),
                    None => Ok(self.out.write_str("null")?),
                }
            }
            Member::String => match wire::verified_str(buf, target) {
                Some(s) => {
                    self.charge(s.len() / 16)?;
                    Ok(write_string(self.out, s)?)
                }
                None => Ok(self.out.write_str("null")?),
            },
        }
    }

    fn union_tag(&mut self, u: S::Union, tag: u8) -> fmt::Result {
        match (tag, self.schema.member(u, tag)) {
            (0, _) => self.out.write_str("\"NONE\""),
            (_, Some((name, _))) => write_string(self.out, name),
            (_, None) => write!(self.out, "{tag}"),
        }
    }

    /// An enum value as flatc prints it: its name; for a `bit_flags` enum, the names of its
    /// bits when they cover it; else the number.
    fn enum_value(&mut self, e: S::Enum, value: ScalarValue) -> fmt::Result {
        let schema = self.schema;
        let as_i64 =
            value.as_i128().and_then(|v| i64::try_from(v).or_else(|_| u64::try_from(v).map(u64::cast_signed)).ok());
        let Some(v) = as_i64 else {
            return write_scalar(self.out, value);
        };
        if let Some(name) = schema.enum_name(e, v) {
            return write_string(self.out, name);
        }
        if let Some(flags) = schema.flags(e).filter(|_| v != 0) {
            let bits = v.cast_unsigned();
            let covered = schema.flags(e).into_iter().flatten().fold(0u64, |m, (f, _)| {
                if f.cast_unsigned() & bits != 0 {
                    m | f.cast_unsigned()
                } else {
                    m
                }
            });
            if covered == bits {
                self.out.write_char('"')?;
                let mut first = true;
                for (f, name) in flags {
                    if f.cast_unsigned() & bits != 0 {
                        if !first {
                            self.out.write_char(' ')?;
                        }
                        first = false;
                        write!(self.out, "{}", Escaped(name))?;
                    }
                }
                return self.out.write_char('"');
            }
        }
        write_scalar(self.out, value)
    }

    fn scalar_vector(&mut self, t: Table<'_>, slot: u16, ty: ScalarType, e: Option<S::Enum>) -> Result<(), DumpError> {
        macro_rules! each {
            ($t:ty, $variant:ident) => {{
                let v = t.vector::<$t>(slot).unwrap_or_default();
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

    fn structure(&mut self, bytes: &[u8], desc: S::Struct) -> Result<(), DumpError> {
        let schema = self.schema;
        self.charge(schema.struct_field_count(desc))?;
        self.open('{')?;
        let mut first = true;
        for f in schema.struct_fields(desc) {
            let at = bytes.get(f.offset..).unwrap_or(&[]);
            self.key(&mut first, f.name)?;
            match f.array {
                None => self.inline(at, &f.kind)?,
                Some(n) => {
                    let size = match f.kind {
                        Inline::Scalar(ty) => ty.size(),
                        Inline::Enum(e) => schema.enum_repr(e).size(),
                        Inline::Struct(s) => schema.struct_size(s),
                    };
                    self.charge(n)?;
                    self.open('[')?;
                    let mut f2 = true;
                    for i in 0..n {
                        self.item(&mut f2)?;
                        let elem = i.checked_mul(size).and_then(|o| at.get(o..)).unwrap_or(&[]);
                        self.inline(elem, &f.kind)?;
                    }
                    self.close(']')?;
                }
            }
        }
        self.close('}')?;
        Ok(())
    }

    /// One inline value (a struct field or array element) at the start of `at`.
    fn inline(&mut self, at: &[u8], kind: &Inline<S>) -> Result<(), DumpError> {
        match *kind {
            Inline::Scalar(ty) => write_scalar(self.out, read_at(at, ty))?,
            Inline::Enum(e) => {
                let value = read_at(at, self.schema.enum_repr(e));
                self.enum_value(e, value)?;
            }
            Inline::Struct(inner) => self.structure(at, inner)?,
        }
        Ok(())
    }
}

/// A scalar field of type `ty`: its value, its default when absent, `None` when an optional
/// scalar (no default) is absent.
fn read_scalar_field(t: Table<'_>, slot: u16, ty: ScalarType, default: Option<ScalarValue>) -> Option<ScalarValue> {
    let default = match default {
        Some(default) => default,
        None => return t.field(slot).map(|at| read_at(t.buffer().get(at..).unwrap_or(&[]), ty)),
    };
    Some(match default {
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
    })
}

/// The scalar of type `ty` at the start of `bytes` (verified bytes, so it is there).
pub(crate) fn read_at(bytes: &[u8], ty: ScalarType) -> ScalarValue {
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
