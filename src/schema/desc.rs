//! Static descriptions of a schema's types, made by the schema macros from the same input as
//! the typed views and the verifier. The JSON dump and tools walk these.

/// A scalar's type together with a value of it (a field's default).
#[allow(non_camel_case_types, missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ScalarValue {
    bool(bool),
    u8(u8),
    i8(i8),
    u16(u16),
    i16(i16),
    u32(u32),
    i32(i32),
    u64(u64),
    i64(i64),
    f32(f32),
    f64(f64),
}

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum ScalarType {
    Bool,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl ScalarType {
    /// Size in bytes.
    pub const fn size(self) -> usize {
        match self {
            ScalarType::Bool | ScalarType::U8 | ScalarType::I8 => 1,
            ScalarType::U16 | ScalarType::I16 => 2,
            ScalarType::U32 | ScalarType::I32 | ScalarType::F32 => 4,
            ScalarType::U64 | ScalarType::I64 | ScalarType::F64 => 8,
        }
    }
}

impl ScalarValue {
    /// The value's type.
    pub const fn scalar_type(self) -> ScalarType {
        match self {
            ScalarValue::bool(_) => ScalarType::Bool,
            ScalarValue::u8(_) => ScalarType::U8,
            ScalarValue::i8(_) => ScalarType::I8,
            ScalarValue::u16(_) => ScalarType::U16,
            ScalarValue::i16(_) => ScalarType::I16,
            ScalarValue::u32(_) => ScalarType::U32,
            ScalarValue::i32(_) => ScalarType::I32,
            ScalarValue::u64(_) => ScalarType::U64,
            ScalarValue::i64(_) => ScalarType::I64,
            ScalarValue::f32(_) => ScalarType::F32,
            ScalarValue::f64(_) => ScalarType::F64,
        }
    }

    /// The value as an integer, when it is one (bools as 0 and 1).
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            ScalarValue::bool(v) => i128::from(v),
            ScalarValue::u8(v) => i128::from(v),
            ScalarValue::i8(v) => i128::from(v),
            ScalarValue::u16(v) => i128::from(v),
            ScalarValue::i16(v) => i128::from(v),
            ScalarValue::u32(v) => i128::from(v),
            ScalarValue::i32(v) => i128::from(v),
            ScalarValue::u64(v) => i128::from(v),
            ScalarValue::i64(v) => i128::from(v),
            ScalarValue::f32(_) | ScalarValue::f64(_) => return None,
        })
    }
}

/// A whole schema: its namespace, identifier and root table.
#[derive(Debug)]
pub struct SchemaDesc {
    /// The `namespace` of the `.fbs` file.
    pub namespace: &'static str,
    /// The `file_identifier`, if the schema declares one.
    pub identifier: Option<[u8; 4]>,
    /// The `root_type`.
    pub root: TableRef,
}

/// A table type.
#[derive(Debug)]
pub struct TableDesc {
    /// The table's name in the schema.
    pub name: &'static str,
    /// Its fields in declaration order (which is slot order), deprecated ones included.
    pub fields: &'static [FieldDesc],
}

/// One field of a table.
#[derive(Debug)]
pub struct FieldDesc {
    /// The field's name in the schema.
    pub name: &'static str,
    /// Its vtable slot (for unions, the value's slot; the type is in the slot before).
    pub slot: u16,
    /// What it holds.
    pub kind: FieldKind,
    /// Whether the schema marks it `required`.
    pub required: bool,
    /// Whether the schema marks it `deprecated` (no accessor; dumped only when present).
    pub deprecated: bool,
}

/// What a table field holds.
#[derive(Debug)]
pub enum FieldKind {
    /// A scalar, with its default.
    Scalar(ScalarValue),
    /// An enum, with its default.
    Enum(&'static EnumDesc, ScalarValue),
    /// A string.
    String,
    /// A table.
    Table(TableRef),
    /// A struct, stored inline.
    Struct(&'static StructDesc),
    /// A vector of scalars.
    Vector(ScalarType),
    /// A vector of enum values.
    EnumVector(&'static EnumDesc),
    /// A vector of strings.
    StringVector,
    /// A vector of tables.
    TableVector(TableRef),
    /// A vector of structs.
    StructVector(&'static StructDesc),
    /// A union: a type tag in the slot before, the value in this slot.
    Union(UnionRef),
    /// A vector of unions: types in the slot before, values in this slot.
    UnionVector(UnionRef),
}

/// An enum type.
#[derive(Debug)]
pub struct EnumDesc {
    /// The enum's name in the schema.
    pub name: &'static str,
    /// Its underlying type.
    pub repr: ScalarType,
    /// Its named values.
    pub values: &'static [(i64, &'static str)],
    /// Whether it is a `bit_flags` enum.
    pub bit_flags: bool,
}

impl EnumDesc {
    /// The name of `value`, or `None` for values this schema revision does not name.
    pub fn name_of(&self, value: i64) -> Option<&'static str> {
        self.values.iter().find(|(v, _)| *v == value).map(|(_, n)| *n)
    }
}

/// A union type.
#[derive(Debug)]
pub struct UnionDesc {
    /// The union's name in the schema.
    pub name: &'static str,
    /// Its members: type tag, name, table.
    pub variants: &'static [(u8, &'static str, TableRef)],
}

impl UnionDesc {
    /// The member for type `tag`, if this schema revision names it.
    pub fn variant(&self, tag: u8) -> Option<(&'static str, &'static TableDesc)> {
        self.variants.iter().find(|(t, _, _)| *t == tag).map(|(_, n, d)| (*n, d()))
    }
}

/// A struct type.
#[derive(Debug)]
pub struct StructDesc {
    /// The struct's name in the schema.
    pub name: &'static str,
    /// Size in bytes.
    pub size: usize,
    /// Alignment in bytes.
    pub align: usize,
    /// Its fields with their byte offsets.
    pub fields: &'static [StructFieldDesc],
}

/// One field of a struct.
#[derive(Debug)]
pub struct StructFieldDesc {
    /// The field's name.
    pub name: &'static str,
    /// Byte offset inside the struct.
    pub offset: usize,
    /// What it holds.
    pub kind: StructFieldKind,
}

/// What a struct field holds.
#[derive(Debug)]
pub enum StructFieldKind {
    /// A scalar.
    Scalar(ScalarType),
    /// An enum value.
    Enum(&'static EnumDesc),
    /// A nested struct.
    Struct(&'static StructDesc),
    /// A fixed-length array of scalars.
    Array(ScalarType, usize),
}

/// A lazy reference to a table's description (descriptions may refer to each other in cycles).
pub type TableRef = fn() -> &'static TableDesc;

/// A lazy reference to a union's description.
pub type UnionRef = fn() -> &'static UnionDesc;

/// Implemented by every generated table view.
pub trait TableType {
    /// The table's description.
    fn desc() -> &'static TableDesc;
}

/// Implemented by every generated enum.
pub trait EnumType {
    /// The enum's description.
    const DESC: &'static EnumDesc;
}

/// Implemented by every generated union.
pub trait UnionType {
    /// The union's description.
    fn desc() -> &'static UnionDesc;
}

/// Implemented by every generated struct view.
pub trait StructType {
    /// The struct's description.
    const DESC: &'static StructDesc;
}
