//! Lexical checks on the paths a MANIFEST or a zip archive names: every path must stay inside
//! the package, whatever platform reads it.

use std::string::String;
use std::vec::Vec;

/// A path inside the package: `/`-separated normal components, none empty, `.` or `..`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RelPath(String);

impl RelPath {
    /// Checks `text` lexically: relative, no `..`, no backslash, no drive letter, no NUL. `.`
    /// components and repeated or trailing slashes are dropped.
    pub fn parse(text: &str) -> Result<RelPath, &'static str> {
        if text.is_empty() {
            return Err("empty path");
        }
        if text.contains('\0') {
            return Err("path contains a NUL byte");
        }
        if text.contains('\\') {
            return Err("path contains a backslash (a Windows separator)");
        }
        if text.starts_with('/') {
            return Err("absolute path");
        }
        let mut chars = text.chars();
        if let (Some(letter), Some(':')) = (chars.next(), chars.next()) {
            if letter.is_ascii_alphabetic() {
                return Err("path starts with a drive letter");
            }
        }
        let mut parts: Vec<&str> = Vec::new();
        for part in text.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err("path goes up with \"..\""),
                p => parts.push(p),
            }
        }
        if parts.is_empty() {
            return Err("path names no file");
        }
        Ok(RelPath(parts.join("/")))
    }

    /// `dir/self`, for paths relative to a directory of the package (`metadata/`).
    pub fn under(dir: &str, text: &str) -> Result<RelPath, &'static str> {
        let inner = RelPath::parse(text)?;
        RelPath::parse(&std::format!("{dir}/{}", inner.0))
    }

    /// The normalised text, `/`-separated.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The components, outermost first.
    pub fn components(&self) -> impl Iterator<Item = &str> {
        self.0.split('/')
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // in tests a panic is a failure
mod tests {
    use super::RelPath;

    #[test]
    fn paths_inside_the_package_pass_and_normalise() {
        assert_eq!(RelPath::parse("a.tflite").unwrap().as_str(), "a.tflite");
        assert_eq!(RelPath::parse("./m//b.circle").unwrap().as_str(), "m/b.circle");
        assert_eq!(RelPath::under("metadata", "x.cfg").unwrap().as_str(), "metadata/x.cfg");
    }

    #[test]
    fn escapes_are_rejected() {
        for bad in ["", "/etc/passwd", "../x", "a/../../x", "a\\..\\x", "C:/x", "c:x", "a\0b", ".", "./"] {
            assert!(RelPath::parse(bad).is_err(), "{bad:?}");
        }
    }
}
