//! The work budget of a summary: what `inspect` may list for a file of a given size.
//!
//! A file whose tables are shared by many offsets describes a model far larger than itself
//! (20,000 subgraph entries naming one subgraph of 20,000 inputs fit in 160 KB). `inspect`
//! charges every row it lists, every element of the lists in each row and every byte of text it
//! copies out of the file (a name stored once may be named by many tables), and refuses the file
//! once the charge passes the budget, so its time, memory and output stay linear in the file.

use flatmodel::verify::Options;

/// Summary units allowed per input byte. Real models need well under one unit per four bytes
/// (a tensor row costs about one unit per dimension and per quantization parameter, each of
/// which takes four or more bytes in the file), so this refuses only files whose tables are
/// shared many times over.
const UNITS_PER_BYTE: u32 = 4;

/// The summary was refused: it would be disproportionate to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "refused: the summary would be disproportionate to the file (its tables are shared by many \
             offsets, so the model it describes is far larger than the file)",
        )
    }
}

/// Units of summary left to spend.
#[derive(Debug)]
pub struct Budget {
    left: u64,
}

impl Budget {
    /// The budget for a file of `len` bytes.
    pub fn for_file(len: usize) -> Self {
        let options = Options { apparent_size_per_byte: UNITS_PER_BYTE, ..Options::DEFAULT };
        Budget { left: options.apparent_size_budget(len) }
    }

    /// Spends `units`, or fails when the budget would be exceeded.
    pub fn charge(&mut self, units: usize) -> Result<(), OverBudget> {
        let units = u64::try_from(units).unwrap_or(u64::MAX);
        self.left = self.left.checked_sub(units).ok_or(OverBudget)?;
        Ok(())
    }

    /// `text` copied out of the file, a unit per byte.
    pub fn text(&mut self, text: &str) -> Result<String, OverBudget> {
        self.charge(text.len())?;
        Ok(text.to_string())
    }

    /// [`Budget::text`] of a string the file may leave out.
    pub fn text_of(&mut self, text: Option<&str>) -> Result<Option<String>, OverBudget> {
        text.map(|t| self.text(t)).transpose()
    }
}
