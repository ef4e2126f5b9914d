//! A full traversal of verified data through the typed accessors, for fuzzing and benchmarks.

/// Visits every field of a view and everything it reaches, through the typed accessors.
pub trait Walk {
    /// Walks `self` into `w`.
    fn walk(&self, w: &mut Walker);
}

/// Counts what a walk touched and folds every value read into a checksum (so no read can be
/// optimised away).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walker {
    /// Tables visited.
    pub tables: u64,
    /// Vectors visited (scalar, struct and offset vectors).
    pub vectors: u64,
    /// Strings read.
    pub strings: u64,
    /// A fold of every value read.
    pub checksum: u64,
}

/// A scalar's bits, for the checksum.
pub trait Bits: Copy {
    /// The value's bits widened to 64.
    fn bits(self) -> u64;
}

macro_rules! bits {
    ($($t:ty => |$v:ident| $e:expr),* $(,)?) => {$(
        impl Bits for $t {
            #[inline(always)]
            fn bits(self) -> u64 {
                let $v = self;
                $e
            }
        }
    )*};
}

bits! {
    bool => |v| u64::from(v), u8 => |v| u64::from(v), i8 => |v| u64::from(v.to_le_bytes()[0]),
    u16 => |v| u64::from(v), i16 => |v| u64::from(u16::from_le_bytes(v.to_le_bytes())),
    u32 => |v| u64::from(v), i32 => |v| u64::from(u32::from_le_bytes(v.to_le_bytes())),
    u64 => |v| v, i64 => |v| u64::from_le_bytes(v.to_le_bytes()),
    f32 => |v| u64::from(v.to_bits()), f64 => |v| v.to_bits(),
}

impl Walker {
    #[inline(always)]
    fn mix(&mut self, bits: u64) {
        self.checksum = self.checksum.rotate_left(5) ^ bits;
    }

    /// A table was entered.
    #[inline(always)]
    pub fn table(&mut self) {
        self.tables = self.tables.wrapping_add(1);
    }

    /// A scalar was read.
    #[inline(always)]
    pub fn scalar<T: Bits>(&mut self, value: T) {
        self.mix(value.bits());
    }

    /// A string was read.
    #[inline(always)]
    pub fn string(&mut self, s: &str) {
        self.strings = self.strings.wrapping_add(1);
        self.mix(s.len() as u64 ^ u64::from(s.bytes().next().unwrap_or(0)));
    }

    /// A scalar or struct vector of `len` elements was read, starting with `first`.
    #[inline(always)]
    pub fn vector<T: Bits>(&mut self, len: usize, first: Option<T>) {
        self.vectors = self.vectors.wrapping_add(1);
        self.mix(len as u64 ^ first.map_or(0, Bits::bits));
    }

    /// A vector of `len` offsets was entered.
    #[inline(always)]
    pub fn offsets(&mut self, len: usize) {
        self.vectors = self.vectors.wrapping_add(1);
        self.mix(len as u64);
    }

    /// A struct's bytes were read.
    #[inline(always)]
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.mix(bytes.len() as u64 ^ u64::from(bytes.first().copied().unwrap_or(0)));
    }

    /// Tables, vectors and strings visited.
    pub fn objects(&self) -> u64 {
        self.tables.wrapping_add(self.vectors).wrapping_add(self.strings)
    }
}
