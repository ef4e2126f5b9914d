//! The config file (`metadata/<name>`, the first of `configs`): `key=value` lines for the
//! runtime, `#` starting a comment, whitespace around keys and values ignored.

use super::error::{PackageError, PackageErrorKind as Kind};
use std::borrow::ToOwned;
use std::format;
use std::string::String;
use std::vec::Vec;

/// A parsed config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The file's path in the package (`metadata/<name>`).
    pub file: String,
    /// The `key=value` pairs in file order (a key may repeat; the runtime takes the last).
    pub entries: Vec<(String, String)>,
}

impl Config {
    /// Parses the text of the config file `file` (its path in the package, for messages).
    pub fn parse(file: &str, bytes: &[u8]) -> Result<Config, PackageError> {
        let text = core::str::from_utf8(bytes)
            .map_err(|e| PackageError::new(Kind::Config, file, format!("not UTF-8 text ({e})")))?;
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let content = line.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let at = || format!("{file}: line {}", n.saturating_add(1));
            let (key, value) = content.split_once('=').ok_or_else(|| {
                PackageError::new(Kind::Config, at(), format!("expected key=value, found {content:?}"))
            })?;
            let key = key.trim();
            if key.is_empty() {
                return Err(PackageError::new(Kind::Config, at(), format!("no key before \"=\" in {content:?}")));
            }
            entries.push((key.to_owned(), value.trim().to_owned()));
        }
        Ok(Config { file: file.to_owned(), entries })
    }

    /// The value of `key`: the last line that sets it.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)] // in tests a panic is a failure
mod tests {
    use super::Config;
    use std::string::ToString;

    #[test]
    fn lines_comments_and_whitespace() {
        let c =
            Config::parse("metadata/c.cfg", b"BACKENDS=cpu\n# comment\n EXECUTOR = Linear # trailing\n\nX=\n").unwrap();
        assert_eq!(c.get("BACKENDS"), Some("cpu"));
        assert_eq!(c.get("EXECUTOR"), Some("Linear"));
        assert_eq!(c.get("X"), Some(""));
        assert_eq!(c.entries.len(), 3);
    }

    #[test]
    fn a_line_without_equals_names_its_line() {
        let e = Config::parse("metadata/c.cfg", b"A=1\nnonsense\n").unwrap_err();
        assert_eq!(e.to_string(), "metadata/c.cfg: line 2: expected key=value, found \"nonsense\"");
    }
}
