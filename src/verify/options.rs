//! The verifier's limits, as named options with safe defaults.

/// Limits on what one verification may do. Every limit turns a pathological input into an
/// [`crate::Error`], never into unbounded time or stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Deepest nesting of tables (nested flatbuffers included).
    pub max_depth: u32,
    /// Most table visits in one verification.
    pub max_tables: u64,
    /// The apparent-size budget per input byte: verification may do at most this many units
    /// of work (a table and each of its fields, a vector element, 16 string bytes) per byte of
    /// input, plus [`Options::APPARENT_SIZE_SLACK`]. This is what keeps work linear in the
    /// input size whatever the input, shared subtrees included.
    pub apparent_size_per_byte: u32,
    /// An absolute cap on the apparent size, on top of the per-byte budget.
    pub max_apparent_size: u64,
    /// Whether the data must be aligned as writers align it. Views read unaligned, so this is
    /// conformance, not safety. With it the verifier checks: the root offset, tables (their
    /// soffset), vector and string lengths on 4 bytes; vtables on 2; each present table field
    /// on its own size (a struct field on the struct's alignment, an offset field on 4); and
    /// the element data of scalar and struct vectors on the element's alignment when that is 8
    /// (`long`, `ulong`, `double`, structs aligned to 8), one check per vector, as the
    /// `flatbuffers` crate's verifier does (the C++ verifier does not check vector elements).
    /// Positions are measured from the start of the flatbuffer being verified.
    pub check_alignment: bool,
    /// cvimodel: the most bytes the LZ4 sections of a file may claim to inflate to together
    /// (the sum of their `decompressed_size`), and so the most
    /// [`crate::cvimodel::CviModel::decompress_section`] allocates. Verification itself never
    /// inflates a section (it walks the LZ4 sequences in the stored bytes), so this bounds what
    /// readers that do inflate are asked for. An absolute cap rather than a multiple of the file
    /// size, because LZ4 legitimately reaches 255 times the stored size on zero-filled data.
    pub max_inflated_size: u64,
}

impl Options {
    /// Work allowed on top of the per-byte budget, so tiny inputs are not starved.
    pub const APPARENT_SIZE_SLACK: u64 = 4096;

    /// The defaults: depth 64, 16 Mi table visits, 16 units of work per byte, alignment
    /// checked, cvimodel sections inflating to at most 1 GiB together (real models need a few
    /// MiB of device memory in all).
    pub const DEFAULT: Options = Options {
        max_depth: 64,
        max_tables: 1 << 24,
        apparent_size_per_byte: 16,
        max_apparent_size: u64::MAX,
        check_alignment: true,
        max_inflated_size: 1 << 30,
    };

    /// The work budget for an input of `len` bytes.
    pub fn apparent_size_budget(&self, len: usize) -> u64 {
        let len = u64::try_from(len).unwrap_or(u64::MAX);
        len.saturating_mul(u64::from(self.apparent_size_per_byte))
            .saturating_add(Self::APPARENT_SIZE_SLACK)
            .min(self.max_apparent_size)
    }
}

impl Default for Options {
    fn default() -> Self {
        Options::DEFAULT
    }
}

/// What a successful verification visited: the figures behind the per-object benchmarks and
/// the linear-work guarantee.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tables verified (a shared table found in the memo is not counted again).
    pub tables: u64,
    /// Vectors verified.
    pub vectors: u64,
    /// Strings verified.
    pub strings: u64,
    /// Shared objects recognised as already verified.
    pub memo_hits: u64,
    /// Units of work done (the apparent size).
    pub apparent_size: u64,
}

impl Stats {
    /// Tables, vectors and strings verified.
    pub fn objects(&self) -> u64 {
        self.tables.saturating_add(self.vectors).saturating_add(self.strings)
    }
}
