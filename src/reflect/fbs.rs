//! The `.fbs` reader: a lexer and a parser into a schema model that keeps every declaration in
//! order, with its file, line, column and the comments written just above it.
//!
//! The parser reads into a flat form (`flat::Parsed`), which the resolver reads as it is:
//! names and literals are ranges of the text read and each kind of item is in one vector, so
//! reading a schema allocates a few buffers rather than a string per name. [`parse_with`] gives
//! the public [`Schema`] made from it. Tokens are read as the parser goes, and where it expects
//! a name or punctuation it looks at the text for just that.
//!
//! Every function here returns a [`SchemaError`] (file, line, column, message) on malformed
//! input; none panics, and the work and memory are linear in the text read. Includes are read
//! through a caller's loader, at most [`MAX_INCLUDE_DEPTH`] deep and each file once.
//!
//! The generator of the compiled-in schemas' code (`codegen/`) reads them through this parser
//! and the resolver too, so the compiled-in schemas and the run-time ones are read alike.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::BTreeSet;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

/// How deep includes may nest (flatc has no limit; a deeper chain is surely hostile).
pub const MAX_INCLUDE_DEPTH: usize = 64;

/// How many files one schema may read, includes included.
pub const MAX_FILES: usize = 1024;

/// Attributes flatc itself knows; any other must be declared with `attribute "name";`.
pub const KNOWN_ATTRIBUTES: &[&str] = &[
    "deprecated",
    "required",
    "key",
    "hash",
    "id",
    "force_align",
    "bit_flags",
    "nested_flatbuffer",
    "flexbuffer",
    "shared",
    "original_order",
    "streaming",
    "idempotent",
    "private",
    "csharp_partial",
];

/// Prefixes of the language-specific attributes flatc knows (`native_type`, `cpp_type`, ...).
pub const KNOWN_ATTRIBUTE_PREFIXES: &[&str] = &["native_", "cpp_", "rust_", "ts_", "java_", "go_", "swift_"];

/// Why a schema was refused, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// The file (as named to the loader; for the main file, as given).
    pub file: String,
    /// 1-based line; 0 when the error is not about a place in the text.
    pub line: usize,
    /// 1-based column (in characters); 0 when the error is about a whole line or file.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl SchemaError {
    /// An error at `file:line:column`.
    pub fn at(file: &str, line: usize, column: usize, message: impl Into<String>) -> Self {
        SchemaError { file: file.to_string(), line, column, message: message.into() }
    }
}

impl core::error::Error for SchemaError {}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (line, 0) => write!(f, "{}:{line}: {}", self.file, self.message),
            (line, column) => write!(f, "{}:{line}:{column}: {}", self.file, self.message),
        }
    }
}

/// A literal in a default value or an attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A number as written, sign included (`-1`, `0x10`, `1.5e3`).
    Num(String),
    /// A name, possibly dotted or signed (`true`, `DEFAULT_STORAGE`, `-inf`, `null`).
    Ident(String),
    /// A string literal, unescaped.
    Str(String),
}

/// `(name)` or `(name: value)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attr {
    /// The attribute's name.
    pub name: String,
    /// Its value, if given.
    pub value: Option<Value>,
    /// Where the name is.
    pub line: usize,
    /// Its column.
    pub column: usize,
}

/// A field type as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// A scalar, `string` or a (possibly namespace-qualified) user type.
    Named(String),
    /// `[T]`.
    Vector(Box<Type>),
    /// `[T:N]` (structs only).
    Array(Box<Type>, u64),
}

/// A field of a struct or table.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The field's name.
    pub name: String,
    /// Its type as written.
    pub ty: Type,
    /// `= value`, if given.
    pub default: Option<Value>,
    /// Its attributes.
    pub attrs: Vec<Attr>,
    /// The comment lines above it.
    pub docs: Vec<String>,
    /// Where its name is.
    pub line: usize,
    /// Its column.
    pub column: usize,
}

/// An enum value: `NAME` or `NAME = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumVal {
    /// The value's name.
    pub name: String,
    /// `= value`, if given.
    pub value: Option<Value>,
    /// Its attributes.
    pub attrs: Vec<Attr>,
    /// The comment lines above it.
    pub docs: Vec<String>,
    /// Where its name is.
    pub line: usize,
    /// Its column.
    pub column: usize,
}

/// A union member: `Type`, `Alias: Type`, optionally `= value`.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionMember {
    /// `Alias:`, if given.
    pub alias: Option<String>,
    /// The member's type.
    pub ty: String,
    /// `= value`, if given.
    pub value: Option<Value>,
    /// Its attributes.
    pub attrs: Vec<Attr>,
    /// Where it starts.
    pub line: usize,
    /// Its column.
    pub column: usize,
}

/// What a declaration declares.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// `enum Name : repr { values }`.
    Enum {
        /// The underlying type as written.
        repr: Option<String>,
        /// Its values in order.
        values: Vec<EnumVal>,
    },
    /// `union Name { members }`.
    Union {
        /// Its members in order.
        members: Vec<UnionMember>,
    },
    /// `struct Name { fields }`.
    Struct {
        /// Its fields in order.
        fields: Vec<Field>,
    },
    /// `table Name { fields }`.
    Table {
        /// Its fields in order.
        fields: Vec<Field>,
    },
}

/// An `enum`, `union`, `struct` or `table` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// The declared name (without namespace).
    pub name: String,
    /// The namespace in force where it is declared ("" when none).
    pub namespace: String,
    /// The file name (no directory) of the schema file that declares it.
    pub file: String,
    /// 1-based line of the `table`/`struct`/`enum`/`union` keyword.
    pub line: usize,
    /// Its column.
    pub column: usize,
    /// The comment lines above it.
    pub docs: Vec<String>,
    /// Its attributes.
    pub attrs: Vec<Attr>,
    /// What it declares.
    pub body: Body,
}

/// A parsed schema and everything it includes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// Declarations in order: included files' first, in include order.
    pub decls: Vec<Decl>,
    /// The last `namespace` declaration's dotted name ("" when none).
    pub namespace: String,
    /// `file_identifier` (the main file's, else an included file's).
    pub file_identifier: Option<String>,
    /// `root_type`, the namespace it was declared in, and where (`file:line`).
    pub root_type: Option<(String, String)>,
    /// The namespace in force at `root_type`.
    pub root_namespace: String,
    /// Where `root_type` is: file, line, column.
    pub root_at: (String, usize, usize),
    /// Names declared with `attribute "x";`.
    pub user_attributes: BTreeSet<String>,
}

/// Reads schema files by name: the main file's name as given, includes' names resolved against
/// the including file's directory (`dir/sub/a.fbs`). Returns the text or why it cannot.
pub type Loader<'l> = dyn FnMut(&str) -> Result<String, String> + 'l;

/// Parses the schema named `path`, reading it and its includes through `load`, with the
/// comments above each declaration as its docs.
pub fn parse_with(path: &str, load: &mut Loader<'_>) -> Result<Schema, SchemaError> {
    parse_with_docs(path, load, true)
}

/// [`parse_with`], keeping docs only when `docs` (reading a schema to use it needs none, and
/// leaving them out saves most of the allocations).
pub fn parse_with_docs(path: &str, load: &mut Loader<'_>, docs: bool) -> Result<Schema, SchemaError> {
    Ok(parse_flat(path, None, load, docs)?.into_schema())
}

/// Parses a single in-memory schema named `file` (includes are an error).
pub fn parse_str(src: &str, file: &str) -> Result<Schema, SchemaError> {
    parse_with(file, &mut |p: &str| {
        if p == file {
            Ok(src.to_string())
        } else {
            Err(format!("cannot read {p}: not in memory"))
        }
    })
}

/// Parses the schema named `path` into the flat form the resolver reads: its text is `main`
/// when given (else read through `load`, as its includes are).
pub(crate) fn parse_flat<'t>(
    path: &str,
    main: Option<&'t str>,
    load: &mut Loader<'_>,
    docs: bool,
) -> Result<flat::Parsed<'t>, SchemaError> {
    let mut out = flat::Parsed::with_capacity(main.map_or(0, str::len));
    if let Some(text) = main {
        out.set_main(Cow::Borrowed(text));
    }
    let mut st = State { out, seen: BTreeSet::new(), docs };
    parse_one(&mut st, &normalize(path), main, load, true, 0)?;
    Ok(st.out)
}

struct State<'t> {
    out: flat::Parsed<'t>,
    seen: BTreeSet<String>,
    /// Whether to keep comments as docs.
    docs: bool,
}

/// Resolves `.` and `..` lexically and joins with `/`, so one file included twice is read once.
fn normalize(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|&p| p != "..") {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    let joined = out.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// The directory part of `path` (with its trailing `/`), or "".
fn directory(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => path.get(..=i).unwrap_or(""),
        None => "",
    }
}

/// The file-name part of `path`.
fn file_name(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => path.get(i.saturating_add(1)..).unwrap_or(path),
        None => path,
    }
}

fn parse_one<'t>(
    st: &mut State<'t>,
    path: &str,
    main: Option<&'t str>,
    load: &mut Loader<'_>,
    is_main: bool,
    depth: usize,
) -> Result<(), SchemaError> {
    if !st.seen.insert(path.to_string()) {
        return Ok(());
    }
    let file = file_name(path);
    if st.seen.len() > MAX_FILES {
        return Err(SchemaError::at(file, 0, 0, format!("more than {MAX_FILES} schema files")));
    }
    let mut loaded = None;
    let src = match main {
        Some(text) => text,
        None => loaded.insert(load(path).map_err(|message| SchemaError::at(path, 0, 0, message))?).as_str(),
    };
    // Names are ranges of the text they are read from: the main file's kept as it is (given,
    // or moved in once read), the others' copied in.
    let base = if is_main { st.out.main_at(src.len()) } else { st.out.push_source(src) };
    let mut p = Parser::new(src, file, st.docs, base)?;
    let file_sym = st.out.push(file);
    let mut namespace = flat::Sym::default();
    loop {
        let t = p.next();
        let (line, column) = (t.line, t.column);
        let kw = match t.tok {
            Tok::Eof => break,
            Tok::Ident(kw) => kw,
            Tok::Punct(b'{') => {
                // A JSON object in a schema file: data, not declarations.
                p.skip_braces(line, column)?;
                continue;
            }
            other => return p.err(line, column, format!("expected a declaration, found {}", other.describe())),
        };
        let out = &mut st.out;
        let kind = match kw {
            "include" | "native_include" => {
                let name = p.string()?;
                p.expect(b';')?;
                if kw == "include" {
                    if depth >= MAX_INCLUDE_DEPTH {
                        return p.err(line, column, format!("includes nest more than {MAX_INCLUDE_DEPTH} deep"));
                    }
                    // A malformed token anywhere in this file is its error, before any include.
                    p.check_rest()?;
                    let inc = normalize(&format!("{}{name}", directory(path)));
                    parse_one(st, &inc, None, load, false, depth.saturating_add(1)).map_err(|mut e| {
                        e.message = format!("{}\n  (included from {file}:{line}:{column})", e.message);
                        e
                    })?;
                }
                continue;
            }
            "namespace" => {
                namespace = p.dotted(out)?;
                out.namespace = namespace;
                p.expect(b';')?;
                continue;
            }
            "attribute" => {
                let name = match p.next() {
                    t @ Token { tok: Tok::Str(raw, escaped), .. } => p.string_sym(out, &t, raw, escaped),
                    Token { tok: Tok::Ident(s), at, .. } => p.sym(at, s.len()),
                    t => {
                        return p.err(
                            t.line,
                            t.column,
                            format!("expected an attribute name, found {}", t.tok.describe()),
                        )
                    }
                };
                out.user_attributes.push(name);
                p.expect(b';')?;
                continue;
            }
            "file_identifier" => {
                let id = p.string()?;
                if id.len() != 4 || !id.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\') {
                    return p.err(
                        line,
                        column,
                        format!("file_identifier must be 4 printable ASCII characters, got {id:?}"),
                    );
                }
                p.expect(b';')?;
                if is_main || out.file_identifier.is_none() {
                    out.file_identifier = Some(out.push(&id));
                }
                continue;
            }
            "file_extension" => {
                p.string()?;
                p.expect(b';')?;
                continue;
            }
            "root_type" => {
                let name = p.dotted(out)?;
                p.expect(b';')?;
                if is_main || out.root.is_none() {
                    out.root = Some(flat::Root { name, namespace, file: file_sym, line, column });
                }
                continue;
            }
            "rpc_service" => {
                p.rpc_service(out)?;
                continue;
            }
            "enum" => flat::Kind::Enum,
            "union" => flat::Kind::Union,
            "struct" => flat::Kind::Struct,
            "table" => flat::Kind::Table,
            other => return p.err(line, column, format!("unknown declaration `{other}`")),
        };
        p.decl(out, kind, flat::Decl { line, column, namespace, file: file_sym, ..flat::Decl::default() })?;
    }
    p.finish()?;
    if let Some(text) = loaded.filter(|_| is_main) {
        st.out.set_main(Cow::Owned(text));
    }
    Ok(())
}

/// `raw` (a string literal's text between its quotes) with its escapes replaced.
fn unescape(raw: &str, escaped: bool) -> Cow<'_, str> {
    if !escaped {
        return Cow::Borrowed(raw);
    }
    let mut s = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            s.push(c);
            continue;
        }
        // The lexer saw a character after every backslash.
        match chars.next() {
            Some('n') => s.push('\n'),
            Some('t') => s.push('\t'),
            Some('r') => s.push('\r'),
            Some(other) => s.push(other),
            None => {}
        }
    }
    Cow::Owned(s)
}

// ---- the flat form ----------------------------------------------------------------------------

/// A parsed schema as the resolver reads it: every name and literal a range of the text read
/// (the main file's as it is, the others' and the few names not written as they are kept
/// copied), every list in one vector, so that parsing allocates a few growing buffers rather
/// than a string per name. [`Parsed::into_schema`] turns it into the public [`Schema`].
pub(crate) mod flat {
    use super::{Attr as PubAttr, Body, Decl as PubDecl, Field as PubField, Schema, Type as PubType, Value};
    use super::{EnumVal as PubEnumVal, UnionMember};
    use alloc::borrow::Cow;
    use alloc::boxed::Box;
    use alloc::format;
    use alloc::string::{String, ToString};
    use alloc::vec::Vec;

    /// A name or literal: its byte range in the main file's text, or past that in
    /// [`Parsed::text`].
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) struct Sym {
        start: usize,
        end: usize,
    }

    impl Sym {
        /// The range `start..end` (see [`Sym`]).
        pub(super) fn new(start: usize, end: usize) -> Self {
            Sym { start, end }
        }

        /// The length of its text.
        pub fn len(self) -> usize {
            self.end.saturating_sub(self.start)
        }
    }

    /// Entries `start..end` of one of [`Parsed`]'s lists.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) struct Run {
        start: usize,
        end: usize,
    }

    /// A literal in a default value or an attribute ([`Value`]).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Lit {
        /// A number as written, sign included.
        Num(Sym),
        /// A name, possibly dotted or signed.
        Ident(Sym),
        /// A string literal, unescaped.
        Str(Sym),
    }

    /// `(name)` or `(name: value)`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Attr {
        /// The attribute's name.
        pub name: Sym,
        /// Its value, if given.
        pub value: Option<Lit>,
        /// Where the name is.
        pub line: usize,
        /// Its column.
        pub column: usize,
    }

    /// A field type as written (the parser refuses vectors of vectors, so an element is named).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) enum Type {
        /// A scalar, `string` or a (possibly namespace-qualified) user type.
        Named(Sym),
        /// `[T]`.
        Vector(Sym),
        /// `[T:N]`.
        Array(Sym, u64),
    }

    /// A field of a struct or table.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Field {
        /// The field's name.
        pub name: Sym,
        /// Its type as written.
        pub ty: Type,
        /// `= value`, if given.
        pub default: Option<Lit>,
        /// Its attributes.
        pub attrs: Run,
        /// The comment lines above it (when docs are read), in [`Parsed::doc_lines`].
        pub docs: Run,
        /// Where its name is.
        pub line: usize,
        /// Its column.
        pub column: usize,
    }

    /// An enum value: `NAME` or `NAME = value`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct EnumVal {
        /// The value's name.
        pub name: Sym,
        /// `= value`, if given.
        pub value: Option<Lit>,
        /// Its attributes.
        pub attrs: Run,
        /// The comment lines above it (when docs are read), in [`Parsed::doc_lines`].
        pub docs: Run,
        /// Where its name is.
        pub line: usize,
        /// Its column.
        pub column: usize,
    }

    /// A union member: `Type`, `Alias: Type`, optionally `= value`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Member {
        /// `Alias:`, if given.
        pub alias: Option<Sym>,
        /// The member's type.
        pub ty: Sym,
        /// `= value`, if given.
        pub value: Option<Lit>,
        /// Its attributes.
        pub attrs: Run,
        /// Where it starts.
        pub line: usize,
        /// Its column.
        pub column: usize,
    }

    /// What a declaration declares.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) enum Kind {
        /// `enum`: its items are [`Parsed::values`].
        #[default]
        Enum,
        /// `union`: its items are [`Parsed::members`].
        Union,
        /// `struct`: its items are [`Parsed::fields`].
        Struct,
        /// `table`: its items are [`Parsed::fields`].
        Table,
    }

    /// An `enum`, `union`, `struct` or `table` declaration.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
    pub(crate) struct Decl {
        /// What it declares.
        pub kind: Kind,
        /// The declared name (without namespace).
        pub name: Sym,
        /// The namespace in force where it is declared (empty when none).
        pub namespace: Sym,
        /// The file name (no directory) of the schema file that declares it.
        pub file: Sym,
        /// 1-based line of the keyword.
        pub line: usize,
        /// Its column.
        pub column: usize,
        /// The comment lines above it (when docs are read), in [`Parsed::doc_lines`].
        pub docs: Run,
        /// Its own attributes.
        pub attrs: Run,
        /// Its attributes and then its items' (they are read, and kept, in that order).
        pub all_attrs: Run,
        /// An enum's underlying type as written.
        pub repr: Option<Sym>,
        /// Its values, members or fields, by [`Decl::kind`].
        pub items: Run,
    }

    /// `root_type`: the name, the namespace in force, and where.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Root {
        /// The name as written.
        pub name: Sym,
        /// The namespace in force at it.
        pub namespace: Sym,
        /// The file it is in.
        pub file: Sym,
        /// Its line.
        pub line: usize,
        /// Its column.
        pub column: usize,
    }

    /// A parsed schema and everything it includes.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub(crate) struct Parsed<'t> {
        /// The main file's text: names in it are ranges of it.
        main: Cow<'t, str>,
        /// Its length: ranges from there on are of `text`, after it.
        main_len: usize,
        /// Every other file read, and every name or literal not kept as written in one, one
        /// after another.
        text: String,
        /// Declarations in order: included files' first, in include order.
        pub decls: Vec<Decl>,
        /// Every struct and table field, declaration by declaration.
        fields: Vec<Field>,
        /// Every enum value, declaration by declaration.
        values: Vec<EnumVal>,
        /// Every union member, declaration by declaration.
        members: Vec<Member>,
        /// Every attribute, in the order read.
        attrs: Vec<Attr>,
        /// Every doc comment line (when docs are read), item by item.
        doc_lines: Vec<String>,
        /// The last `namespace` declaration's dotted name.
        pub namespace: Sym,
        /// `file_identifier` (the main file's, else an included file's).
        pub file_identifier: Option<Sym>,
        /// `root_type` (the main file's, else an included file's).
        pub root: Option<Root>,
        /// Names declared with `attribute "x";`, in order (repeats included).
        pub user_attributes: Vec<Sym>,
    }

    /// Where to cut [`Parsed`] back to, to drop what was read since.
    pub(super) struct Mark {
        text: usize,
        attrs: usize,
    }

    impl<'t> Parsed<'t> {
        /// Room for what a schema text of `len` bytes usually declares (by tflite's schema, which
        /// is half comments), so that the lists are seldom copied as they grow.
        pub(super) fn with_capacity(len: usize) -> Self {
            Parsed {
                text: String::with_capacity(len / 32),
                decls: Vec::with_capacity(len / 200),
                fields: Vec::with_capacity(len / 128),
                values: Vec::with_capacity(len / 128),
                members: Vec::with_capacity(len / 256),
                attrs: Vec::with_capacity(len / 1024),
                ..Parsed::default()
            }
        }

        /// The text of `s`.
        pub fn str(&self, s: Sym) -> &str {
            let text = match s.start.checked_sub(self.main_len) {
                None => self.main.get(s.start..s.end),
                Some(start) => self.text.get(start..s.end.saturating_sub(self.main_len)),
            };
            text.unwrap_or("")
        }

        /// Where the text read next will start, as ranges count.
        fn end(&self) -> usize {
            self.main_len.saturating_add(self.text.len())
        }

        /// The main file's text is `len` bytes long (ranges of it start at 0): it is put in
        /// place once read ([`Parsed::set_main`]), before any other text.
        pub(super) fn main_at(&mut self, len: usize) -> usize {
            self.main_len = len;
            0
        }

        /// The main file's text.
        pub(super) fn set_main(&mut self, main: Cow<'t, str>) {
            self.main_len = main.len();
            self.main = main;
        }

        /// Appends a file's text (names in it are ranges of it): where it starts.
        pub(super) fn push_source(&mut self, src: &str) -> usize {
            let start = self.end();
            self.text.push_str(src);
            start
        }

        /// Appends `s` to the text.
        pub(super) fn push(&mut self, s: &str) -> Sym {
            let start = self.end();
            self.text.push_str(s);
            Sym { start, end: self.end() }
        }

        /// Extends `s`, the text's last piece, with `.` and `part` (a dotted name read on).
        pub(super) fn push_dotted(&mut self, s: Sym, part: &str) -> Sym {
            self.text.push('.');
            self.text.push_str(part);
            Sym { start: s.start, end: self.end() }
        }

        /// Appends an item's doc lines.
        pub(super) fn push_docs(&mut self, lines: impl Iterator<Item = String>) -> Run {
            let start = self.doc_lines.len();
            self.doc_lines.extend(lines);
            Run { start, end: self.doc_lines.len() }
        }

        /// The doc lines of `run`.
        fn docs(&self, run: Run) -> Vec<String> {
            self.doc_lines.get(run.start..run.end).unwrap_or(&[]).to_vec()
        }

        /// Appends an attribute.
        pub(super) fn push_attr(&mut self, a: Attr) {
            self.attrs.push(a);
        }

        /// Appends a field.
        pub(super) fn push_field(&mut self, f: Field) {
            self.fields.push(f);
        }

        /// Appends an enum value.
        pub(super) fn push_value(&mut self, v: EnumVal) {
            self.values.push(v);
        }

        /// Appends a union member.
        pub(super) fn push_member(&mut self, m: Member) {
            self.members.push(m);
        }

        /// Appends `sign` and `name`: a signed name (`-inf`).
        pub(super) fn push_signed(&mut self, sign: u8, name: &str) -> Sym {
            let start = self.end();
            self.text.push(char::from(sign));
            self.text.push_str(name);
            Sym { start, end: self.end() }
        }

        /// How many items of `kind` were read (where a [`Run`] of the next ones starts).
        pub(super) fn items_end(&self, kind: Kind) -> usize {
            match kind {
                Kind::Enum => self.values.len(),
                Kind::Union => self.members.len(),
                Kind::Struct | Kind::Table => self.fields.len(),
            }
        }

        /// How many attributes were read.
        pub(super) fn attrs_end(&self) -> usize {
            self.attrs.len()
        }

        /// The attributes read since `start`.
        pub(super) fn attrs_since(&self, start: usize) -> Run {
            Run { start, end: self.attrs.len() }
        }

        /// The items of kind `kind` read since `start`.
        pub(super) fn items_since(&self, kind: Kind, start: usize) -> Run {
            Run { start, end: self.items_end(kind) }
        }

        pub(super) fn mark(&self) -> Mark {
            Mark { text: self.text.len(), attrs: self.attrs.len() }
        }

        /// Drops what was read since `mark`.
        pub(super) fn cut(&mut self, mark: Mark) {
            self.text.truncate(mark.text);
            self.attrs.truncate(mark.attrs);
        }

        /// The attributes of `run`.
        pub fn attrs(&self, run: Run) -> &[Attr] {
            self.attrs.get(run.start..run.end).unwrap_or(&[])
        }

        /// The fields of `run`.
        pub fn fields(&self, run: Run) -> &[Field] {
            self.fields.get(run.start..run.end).unwrap_or(&[])
        }

        /// The enum values of `run`.
        pub fn values(&self, run: Run) -> &[EnumVal] {
            self.values.get(run.start..run.end).unwrap_or(&[])
        }

        /// The union members of `run`.
        pub fn members(&self, run: Run) -> &[Member] {
            self.members.get(run.start..run.end).unwrap_or(&[])
        }

        /// The attribute named `name` among `run`, if any. (Asked several times of every
        /// field, most of which have no attributes: that answer is quick.)
        #[inline]
        pub fn attr(&self, run: Run, name: &str) -> Option<&Attr> {
            if run.start == run.end {
                return None;
            }
            self.attrs(run).iter().find(|a| self.str(a.name) == name)
        }

        /// `lit` as the public [`Value`] (for messages, which show it as the parser gives it).
        pub fn value(&self, lit: Lit) -> Value {
            match lit {
                Lit::Num(s) => Value::Num(self.str(s).to_string()),
                Lit::Ident(s) => Value::Ident(self.str(s).to_string()),
                Lit::Str(s) => Value::Str(self.str(s).to_string()),
            }
        }

        fn pub_attrs(&self, run: Run) -> Vec<PubAttr> {
            let attr = |a: &Attr| PubAttr {
                name: self.str(a.name).to_string(),
                value: a.value.map(|v| self.value(v)),
                line: a.line,
                column: a.column,
            };
            self.attrs(run).iter().map(attr).collect()
        }

        fn pub_fields(&self, run: Run) -> Vec<PubField> {
            let named = |s: Sym| PubType::Named(self.str(s).to_string());
            let field = |f: &Field| PubField {
                name: self.str(f.name).to_string(),
                ty: match f.ty {
                    Type::Named(s) => named(s),
                    Type::Vector(s) => PubType::Vector(Box::new(named(s))),
                    Type::Array(s, n) => PubType::Array(Box::new(named(s)), n),
                },
                default: f.default.map(|v| self.value(v)),
                attrs: self.pub_attrs(f.attrs),
                docs: self.docs(f.docs),
                line: f.line,
                column: f.column,
            };
            self.fields(run).iter().map(field).collect()
        }

        fn pub_body(&self, d: &Decl) -> Body {
            match d.kind {
                Kind::Enum => Body::Enum {
                    repr: d.repr.map(|r| self.str(r).to_string()),
                    values: (self.values(d.items).iter())
                        .map(|v| PubEnumVal {
                            name: self.str(v.name).to_string(),
                            value: v.value.map(|v| self.value(v)),
                            attrs: self.pub_attrs(v.attrs),
                            docs: self.docs(v.docs),
                            line: v.line,
                            column: v.column,
                        })
                        .collect(),
                },
                Kind::Union => Body::Union {
                    members: (self.members(d.items).iter())
                        .map(|m| UnionMember {
                            alias: m.alias.map(|a| self.str(a).to_string()),
                            ty: self.str(m.ty).to_string(),
                            value: m.value.map(|v| self.value(v)),
                            attrs: self.pub_attrs(m.attrs),
                            line: m.line,
                            column: m.column,
                        })
                        .collect(),
                },
                Kind::Struct => Body::Struct { fields: self.pub_fields(d.items) },
                Kind::Table => Body::Table { fields: self.pub_fields(d.items) },
            }
        }

        /// The public [`Schema`] of what was read.
        pub fn into_schema(self) -> Schema {
            let s = |sym: Sym| self.str(sym).to_string();
            let decls = (self.decls.iter())
                .map(|d| PubDecl {
                    name: s(d.name),
                    namespace: s(d.namespace),
                    file: s(d.file),
                    line: d.line,
                    column: d.column,
                    docs: self.docs(d.docs),
                    attrs: self.pub_attrs(d.attrs),
                    body: self.pub_body(d),
                })
                .collect();
            Schema {
                decls,
                namespace: s(self.namespace),
                file_identifier: self.file_identifier.map(s),
                root_type: self.root.map(|r| (s(r.name), format!("{}:{}", self.str(r.file), r.line))),
                root_namespace: self.root.map(|r| s(r.namespace)).unwrap_or_default(),
                root_at: self.root.map(|r| (s(r.file), r.line, r.column)).unwrap_or_default(),
                user_attributes: self.user_attributes.iter().map(|&a| s(a)).collect(),
            }
        }
    }
}

// ---- lexer ------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Tok<'s> {
    Ident(&'s str),
    /// A string literal's text between its quotes, escapes as written, and whether it has any.
    Str(&'s str, bool),
    Num(&'s str),
    Punct(u8),
    Eof,
}

impl Tok<'_> {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Str(raw, escaped) => format!("string {:?}", unescape(raw, *escaped)),
            Tok::Num(s) => format!("number `{s}`"),
            Tok::Punct(c) => format!("`{}`", char::from(*c)),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Token<'s> {
    tok: Tok<'s>,
    /// Its first byte's offset in the text.
    at: usize,
    line: usize,
    column: usize,
}

/// A name read: its text, its offset in the source text, and where it is.
#[derive(Clone, Copy, Debug)]
struct Word<'s> {
    text: &'s str,
    at: usize,
    line: usize,
    column: usize,
}

impl Word<'_> {
    /// The offset just past it.
    fn end(&self) -> usize {
        self.at.saturating_add(self.text.len())
    }
}

/// A `//` comment: its line, its text after the slashes, and whether it is alone on its line.
#[derive(Clone, Copy, Debug)]
struct Comment<'s> {
    line: usize,
    text: &'s str,
    standalone: bool,
}

/// Reads the tokens of a source text one at a time, knowing each one's line and column (in
/// characters). The syntax is ASCII, so it looks at bytes; other characters only pass through
/// strings and comments, or are refused. Columns are counted only where a token starts, from
/// the last place counted, so each byte is counted once.
#[derive(Clone)]
struct Lexer<'s> {
    src: &'s str,
    file: &'s str,
    /// The next byte to read.
    at: usize,
    line: usize,
    /// The byte up to which the column is counted, on the current line, and that column.
    counted: usize,
    column: usize,
    /// Whether the bytes since `counted` may hold characters past ASCII (only strings and
    /// comments can), else each byte is a character.
    wide: bool,
    /// Whether a token was read on the current line (a comment after one documents it).
    line_has_token: bool,
    /// The first malformed token met: it is the file's error, and only end of file follows.
    error: Option<SchemaError>,
    /// Whether the rest of the text is known to hold no malformed token.
    checked: bool,
    /// Whether to keep `//` comments (in `comments`, in line order, one a line at most).
    collect: bool,
    comments: Vec<Comment<'s>>,
}

impl<'s> Lexer<'s> {
    fn new(src: &'s str, file: &'s str) -> Self {
        Lexer {
            src,
            file,
            at: 0,
            line: 1,
            counted: 0,
            column: 1,
            wide: false,
            line_has_token: false,
            error: None,
            checked: false,
            collect: false,
            comments: Vec::new(),
        }
    }

    /// The column of byte `at` (on the current line, at or after the last place counted).
    fn column_at(&mut self, at: usize) -> usize {
        let chars = if self.wide {
            let run = self.src.as_bytes().get(self.counted..at).unwrap_or(&[]);
            // Every byte but a UTF-8 continuation byte starts a character.
            run.iter().filter(|&&b| b & 0xC0 != 0x80).count()
        } else {
            at.saturating_sub(self.counted)
        };
        self.wide = false;
        self.column = self.column.saturating_add(chars);
        self.counted = at;
        self.column
    }

    /// A line starts after the newline at byte `at`.
    fn newline(&mut self, at: usize) {
        self.line = self.line.saturating_add(1);
        self.counted = at.saturating_add(1);
        self.column = 1;
        self.wide = false;
        self.line_has_token = false;
    }

    /// Skips white space and comments up to the next token: its first byte, or `None` at the
    /// end (or at a malformed comment, then kept in `error`, with only the end after it).
    #[inline]
    fn skip(&mut self) -> Option<u8> {
        // Asked again where nothing is to be skipped (the parser looks at each token more than
        // once): answered here, without a call.
        match self.src.as_bytes().get(self.at) {
            Some(&c) if !matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C | b'/' | 0x80..) => Some(c),
            _ => self.skip_trivia(),
        }
    }

    /// [`Lexer::skip`] past something to skip (or at the end).
    fn skip_trivia(&mut self) -> Option<u8> {
        let bytes = self.src.as_bytes();
        // White space and `//` comments, most of a schema between tokens, are skipped here;
        // the rarer trivia out of line.
        let mut at = self.at;
        let first = loop {
            // Spaces and newlines, the most of it, tested first: a dispatch on every byte costs
            // a mispredicted jump each.
            while bytes.get(at) == Some(&b' ') {
                at = at.saturating_add(1);
            }
            let Some(&c) = bytes.get(at) else { break None };
            if c == b'\n' {
                self.newline(at);
                at = at.saturating_add(1);
                continue;
            }
            match c {
                b'\t' | b'\r' | b'\x0C' => at = at.saturating_add(1),
                b'/' if bytes.get(at.saturating_add(1)) == Some(&b'/') => at = self.line_comment(at),
                b'/' if bytes.get(at.saturating_add(1)) == Some(&b'*') => match self.block_comment(at) {
                    Ok(end) => at = end,
                    Err(e) => {
                        self.fail(e);
                        return None;
                    }
                },
                0x0B | 0x80.. => match self.unicode_space(at) {
                    Some(end) => at = end,
                    None => break Some(c),
                },
                _ => break Some(c),
            }
        };
        self.at = at;
        first
    }

    /// Where the next token starts: its line and column.
    fn here(&mut self) -> (usize, usize) {
        self.skip();
        (self.line, self.column_at(self.at))
    }

    /// Whether the next token is the punctuation `c` (a `-`, `+` or `.` starting a number is
    /// a number).
    #[inline(always)]
    fn is_punct(&mut self, c: u8) -> bool {
        self.skip() == Some(c) && !(matches!(c, b'-' | b'+' | b'.') && self.signed_number(self.at))
    }

    /// Consumes the punctuation `c` if it is next: where it was.
    #[inline(always)]
    fn eat(&mut self, c: u8) -> Option<usize> {
        if !self.is_punct(c) {
            return None;
        }
        let at = self.at;
        self.at = at.saturating_add(1);
        self.line_has_token = true;
        Some(at)
    }

    /// Consumes the name that is next, if one is.
    #[inline(always)]
    fn name(&mut self) -> Option<Word<'s>> {
        match self.skip() {
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let at = self.at;
                let (line, column) = (self.line, self.column_at(at));
                self.at = name_end(self.src.as_bytes(), at);
                self.line_has_token = true;
                Some(Word { text: self.src.get(at..self.at).unwrap_or(""), at, line, column })
            }
            _ => None,
        }
    }

    /// Reads the next token into `out`; after a malformed one (kept in `error`), end of file.
    /// (Written in place: a token returned by value is copied whole right after being written
    /// field by field, which stalls the processor's store forwarding.)
    fn token_into(&mut self, out: &mut Token<'s>) {
        let src = self.src;
        let bytes = src.as_bytes();
        let first = self.skip();
        let at = self.at;
        let (line, column) = (self.line, self.column_at(at));
        let tok = match first {
            None => {
                *out = Token { tok: Tok::Eof, at, line, column };
                return;
            }
            Some(c @ (b'{' | b'}' | b'(' | b')' | b'[' | b']' | b':' | b';' | b',' | b'=')) => {
                self.at = at.saturating_add(1);
                Tok::Punct(c)
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                self.at = name_end(bytes, at);
                Tok::Ident(src.get(at..self.at).unwrap_or(""))
            }
            Some(c) if c.is_ascii_digit() || self.signed_number(at) => {
                self.at = number_end(bytes, at);
                Tok::Num(src.get(at..self.at).unwrap_or(""))
            }
            Some(c @ (b'-' | b'+' | b'.')) => {
                self.at = at.saturating_add(1);
                Tok::Punct(c)
            }
            Some(b'"') => match self.string(at, line, column) {
                Ok(tok) => tok,
                Err(e) => {
                    self.fail(e);
                    *out = Token { tok: Tok::Eof, at, line, column };
                    return;
                }
            },
            Some(_) => {
                self.fail(self.unexpected(at, line, column));
                *out = Token { tok: Tok::Eof, at, line, column };
                return;
            }
        };
        self.line_has_token = true;
        *out = Token { tok, at, line, column };
    }

    /// A malformed token: the file's error, kept; only the end of the file follows.
    #[cold]
    fn fail(&mut self, e: SchemaError) {
        self.error = Some(e);
        self.at = self.src.len();
    }

    /// The next token (see [`Lexer::token_into`]).
    fn token(&mut self) -> Token<'s> {
        let mut t = Token { tok: Tok::Eof, at: 0, line: 0, column: 0 };
        self.token_into(&mut t);
        t
    }

    /// The first malformed token from here on, if any, read on a copy.
    fn rest_error(&self) -> Option<SchemaError> {
        if self.error.is_some() || self.checked {
            return self.error.clone();
        }
        let mut rest = self.clone();
        rest.collect = false;
        while rest.token().tok != Tok::Eof {}
        rest.error
    }

    /// Skips the `//` comment at `at` (kept when collecting), to the end of its line.
    fn line_comment(&mut self, at: usize) -> usize {
        let src = self.src;
        let start = at.saturating_add(2);
        let rest = src.as_bytes().get(start..).unwrap_or(&[]);
        let end = find_newline(rest).map_or(src.len(), |i| start.saturating_add(i));
        if self.collect {
            let text = src.get(start..end).unwrap_or("");
            let standalone = !self.line_has_token;
            self.comments.push(Comment { line: self.line, text, standalone });
        }
        self.wide = true;
        end
    }

    /// Skips the `/* */` comment at `at`: where it ends, or why it does not.
    fn block_comment(&mut self, at: usize) -> Result<usize, SchemaError> {
        let bytes = self.src.as_bytes();
        let (line, column) = (self.line, self.column_at(at));
        let mut i = at.saturating_add(2);
        loop {
            match bytes.get(i) {
                None => return Err(SchemaError::at(self.file, line, column, "unterminated block comment")),
                Some(b'*') if bytes.get(i.saturating_add(1)) == Some(&b'/') => break,
                Some(b'\n') => self.newline(i),
                Some(_) => {}
            }
            i = i.saturating_add(1);
        }
        self.wide = true;
        Ok(i.saturating_add(2))
    }

    /// Past ASCII (and the vertical tab): where the Unicode white space or byte-order mark at
    /// `at` ends, if it is one (any other character starts a token, or is refused).
    fn unicode_space(&mut self, at: usize) -> Option<usize> {
        let ch = self.src.get(at..).and_then(|r| r.chars().next())?;
        if !(ch.is_whitespace() || ch == '\u{feff}') {
            return None;
        }
        self.wide = true;
        Some(at.saturating_add(ch.len_utf8()))
    }

    /// Whether the `-`, `+` or `.` at `at` starts a number: a digit follows (`-.` and a digit
    /// for a sign).
    fn signed_number(&self, at: usize) -> bool {
        let bytes = self.src.as_bytes();
        let digit = |n: usize| bytes.get(at.saturating_add(n)).is_some_and(|b| b.is_ascii_digit());
        match bytes.get(at) {
            Some(b'-' | b'+') => digit(1) || (bytes.get(at.saturating_add(1)) == Some(&b'.') && digit(2)),
            Some(b'.') => digit(1),
            _ => false,
        }
    }

    /// The string literal at `at` (whose place is `line:column`).
    fn string(&mut self, at: usize, line: usize, column: usize) -> Result<Tok<'s>, SchemaError> {
        let src = self.src;
        let bytes = src.as_bytes();
        let unterminated = || Err(SchemaError::at(self.file, line, column, "unterminated string"));
        let start = at.saturating_add(1);
        let (mut i, mut escaped) = (start, false);
        loop {
            match bytes.get(i) {
                None | Some(b'\n') => return unterminated(),
                Some(b'"') => break,
                Some(b'\\') => {
                    // The escaped character is taken whole, whatever it is.
                    let after = i.saturating_add(1);
                    let e = src.get(after..).and_then(|r| r.chars().next()).filter(|&e| e != '\n');
                    let Some(e) = e else { return unterminated() };
                    escaped = true;
                    i = after.saturating_add(e.len_utf8());
                }
                Some(_) => i = i.saturating_add(1),
            }
        }
        self.at = i.saturating_add(1);
        self.wide = true;
        Ok(Tok::Str(src.get(start..i).unwrap_or(""), escaped))
    }

    /// The error for the character at `at`, which starts no token.
    #[cold]
    fn unexpected(&self, at: usize, line: usize, column: usize) -> SchemaError {
        let ch = self.src.get(at..).and_then(|r| r.chars().next()).unwrap_or(char::REPLACEMENT_CHARACTER);
        SchemaError::at(self.file, line, column, format!("unexpected character {ch:?}"))
    }
}

/// The position of the first newline in `bytes`, looked for eight bytes at a time (comments
/// are half of a typical schema).
/// The place of the lowest byte `flags` flags (one high bit a byte of a word), 0 to 8.
fn first_flagged(flags: u64) -> usize {
    usize::try_from(flags.trailing_zeros() / 8).unwrap_or(8)
}

fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0usize;
    for chunk in &mut chunks {
        let word = u64::from_le_bytes(<[u8; 8]>::try_from(chunk).unwrap_or([0; 8]));
        // A newline byte becomes zero; the lowest byte flagged is the first zero (a flag above
        // it may be false, from the borrow).
        let x = word ^ NEWLINES;
        let zeros = x.wrapping_sub(ONES) & !x & HIGHS;
        if zeros != 0 {
            return Some(base.saturating_add(first_flagged(zeros)));
        }
        base = base.saturating_add(8);
    }
    chunks.remainder().iter().position(|&b| b == b'\n').map(|i| base.saturating_add(i))
}

/// Where the name starting at `at` ends: looked for eight bytes at a time (names are most of
/// what the parser reads), then byte by byte.
fn name_end(bytes: &[u8], at: usize) -> usize {
    let mut at = at;
    while let Some(word) = bytes.get(at..).and_then(|rest| rest.first_chunk::<8>()) {
        let others = !name_bytes(u64::from_le_bytes(*word)) & HIGHS;
        if others != 0 {
            return at.saturating_add(first_flagged(others));
        }
        at = at.saturating_add(8);
    }
    let rest = bytes.get(at..).unwrap_or(&[]);
    at.saturating_add(rest.iter().position(|&b| !name_byte(b)).unwrap_or(rest.len()))
}

/// Each byte's high bit.
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Which of the eight bytes of `word` may be in a name (`[A-Za-z0-9_]`): their high bits set.
fn name_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Each byte below 0x80 checked against ranges with no borrow between bytes: (b | 0x80) - lo
    // keeps the high bit when b >= lo, (0x80 + hi) - b when b <= hi.
    let ascii = !word & HIGHS;
    let low = word & !HIGHS;
    let within = |b: u64, lo: u64, hi: u64| {
        ((b | HIGHS).wrapping_sub(ONES.wrapping_mul(lo))) & (HIGHS.wrapping_add(ONES.wrapping_mul(hi)).wrapping_sub(b))
    };
    let letter = within(low | ONES.wrapping_mul(0x20), 0x61, 0x7a);
    let digit = within(low, 0x30, 0x39);
    let underscore = within(low, 0x5f, 0x5f);
    (letter | digit | underscore) & ascii
}

/// Where the number starting at `at` ends: letters, digits and dots, and a sign after an
/// exponent's `e` (not in hex, where `e` is a digit).
fn number_end(bytes: &[u8], at: usize) -> usize {
    let mut i = at.saturating_add(1);
    let mut prev = bytes.get(at).copied().unwrap_or(0);
    let mut hex = false;
    while let Some(&d) = bytes.get(i) {
        hex |= prev == b'x' || prev == b'X';
        let exponent_sign = (d == b'-' || d == b'+') && !hex && (prev == b'e' || prev == b'E');
        if !(d.is_ascii_alphanumeric() || d == b'.' || exponent_sign) {
            break;
        }
        prev = d;
        i = i.saturating_add(1);
    }
    i
}

/// Whether byte `b` may continue a name (`[A-Za-z0-9_]`): a table, one load a byte, as names
/// are most of what the lexer reads.
fn name_byte(b: u8) -> bool {
    static NAME_BYTES: [bool; 256] = {
        let mut table = [false; 256];
        let mut rest: &mut [bool] = &mut table;
        let mut b: u8 = 0;
        while let [entry, tail @ ..] = rest {
            *entry = b.is_ascii_alphanumeric() || b == b'_';
            rest = tail;
            b = b.wrapping_add(1);
        }
        table
    };
    NAME_BYTES.get(usize::from(b)).copied().unwrap_or(false)
}

/// A comment's text as a doc line: without the slashes and one leading space, tabs expanded,
/// and nothing that could close the code block the generator wraps docs in.
fn clean_comment(raw: &str) -> String {
    let t = raw.strip_prefix('/').unwrap_or(raw);
    let t = t.strip_prefix(' ').unwrap_or(t);
    t.replace('\t', "    ").replace('\r', "").replace("```", "'''").trim_end().to_string()
}

// ---- parser -----------------------------------------------------------------------------------

/// Reads one file's declarations. Where the grammar expects punctuation or a name it looks at
/// the text for just that; a whole token is read only where anything may come (and to say
/// what came instead). A malformed token anywhere in the file is its error whatever else is
/// wrong (as if the whole file were read before parsing): the lexer looks ahead for one when
/// the parser fails or is about to read an include.
struct Parser<'s> {
    lex: Lexer<'s>,
    file: &'s str,
    /// Where the file's text starts in the parsed text, which holds it: names are ranges of it
    /// (only those not written as they are kept, like `a . b` or escaped strings, are copied).
    base: usize,
    /// The file's `//` comments, in line order (when docs are read).
    comments: Vec<Comment<'s>>,
    /// The line whose comment block above was last given out as docs: a block documents the
    /// first item of the line below it only (so reading it stays linear in the text).
    docs_taken: usize,
}

impl<'s> Parser<'s> {
    fn new(src: &'s str, file: &'s str, docs: bool, base: usize) -> Result<Self, SchemaError> {
        let mut lex = Lexer::new(src, file);
        let mut comments = Vec::new();
        if docs {
            // An item's docs include the comment trailing it, read after the item's last token:
            // collect them all first (which also finds any malformed token).
            let mut pre = lex.clone();
            pre.collect = true;
            while pre.token().tok != Tok::Eof {}
            if let Some(e) = pre.error {
                return Err(e);
            }
            comments = pre.comments;
            lex.checked = true;
        }
        Ok(Parser { lex, file, base, comments, docs_taken: 0 })
    }

    /// The end of the file: its malformed token, if it had one.
    fn finish(self) -> Result<(), SchemaError> {
        self.lex.error.map_or(Ok(()), Err)
    }

    /// Fails with the file's malformed token, if the rest of it has one.
    fn check_rest(&mut self) -> Result<(), SchemaError> {
        if let Some(e) = self.lex.rest_error() {
            return Err(e);
        }
        self.lex.checked = true;
        Ok(())
    }

    /// Takes the next token (at the end, end of file again).
    fn next(&mut self) -> Token<'s> {
        let mut t = Token { tok: Tok::Eof, at: 0, line: 0, column: 0 };
        self.lex.token_into(&mut t);
        t
    }

    /// The error at `line:column`, unless the file has a malformed token, which comes first.
    fn err<T>(&self, line: usize, column: usize, msg: impl fmt::Display) -> Result<T, SchemaError> {
        Err(self.lex.rest_error().unwrap_or_else(|| SchemaError::at(self.file, line, column, msg.to_string())))
    }

    /// The error for the next token, which is not what `wanted` says.
    #[cold]
    fn unexpected<T>(&mut self, wanted: &str) -> Result<T, SchemaError> {
        let t = self.next();
        self.err(t.line, t.column, format!("expected {wanted}, found {}", t.tok.describe()))
    }

    fn is_punct(&mut self, c: u8) -> bool {
        self.lex.is_punct(c)
    }

    /// Consumes `c` if it is next.
    #[inline(always)]
    fn eat(&mut self, c: u8) -> bool {
        self.lex.eat(c).is_some()
    }

    #[inline(always)]
    fn expect(&mut self, c: u8) -> Result<(), SchemaError> {
        if self.eat(c) {
            Ok(())
        } else {
            self.unexpected(&format!("`{}`", char::from(c)))
        }
    }

    /// A name and where it is. (Inlined, as the few checks above: a result returned through
    /// memory and read back at once stalls the processor.)
    #[inline(always)]
    fn ident(&mut self) -> Result<Word<'s>, SchemaError> {
        match self.lex.name() {
            Some(name) => Ok(name),
            None => self.unexpected("a name"),
        }
    }

    /// The `len` bytes of the file at `at`, as a range of the parsed text.
    fn sym(&self, at: usize, len: usize) -> flat::Sym {
        let start = self.base.saturating_add(at);
        flat::Sym::new(start, start.saturating_add(len))
    }

    /// A string literal's text: its range as written, or a copy unescaped.
    fn string_sym(&self, out: &mut flat::Parsed, t: &Token<'s>, raw: &str, escaped: bool) -> flat::Sym {
        if escaped {
            out.push(&unescape(raw, true))
        } else {
            self.sym(t.at.saturating_add(1), raw.len())
        }
    }

    fn string(&mut self) -> Result<Cow<'s, str>, SchemaError> {
        match self.next() {
            Token { tok: Tok::Str(raw, escaped), .. } => Ok(unescape(raw, escaped)),
            t => self.err(t.line, t.column, format!("expected a string, found {}", t.tok.describe())),
        }
    }

    /// `a.b.c`.
    fn dotted(&mut self, out: &mut flat::Parsed) -> Result<flat::Sym, SchemaError> {
        let first = self.ident()?;
        self.dotted_from(out, first)
    }

    /// `first.b.c`, `first` read: as written when written so, else copied with its parts joined.
    fn dotted_from(&mut self, out: &mut flat::Parsed, first: Word<'s>) -> Result<flat::Sym, SchemaError> {
        let mut name = self.sym(first.at, first.text.len());
        // Where the name ends in the file while it is a range of it.
        let mut written = Some(first.end());
        while let Some(dot) = self.lex.eat(b'.') {
            let part = self.ident()?;
            name = match written {
                Some(end) if dot == end && part.at == dot.saturating_add(1) => {
                    written = Some(part.end());
                    self.sym(first.at, part.end().saturating_sub(first.at))
                }
                Some(end) => {
                    // Parts apart (`a . b`): the name is copied, joined, to the parsed text's end.
                    written = None;
                    let so_far = out.push(self.lex.src.get(first.at..end).unwrap_or(""));
                    out.push_dotted(so_far, part.text)
                }
                None => out.push_dotted(name, part.text),
            };
        }
        Ok(name)
    }

    /// The comment on `line`, if any.
    fn comment(&self, line: usize) -> Option<&Comment<'s>> {
        let at = self.comments.binary_search_by_key(&line, |c| c.line).ok()?;
        self.comments.get(at)
    }

    /// The standalone comment lines directly above `line` (no blank line between), for the
    /// first item of the line only, then a comment trailing on `line` itself.
    fn docs(&mut self, to: &mut flat::Parsed, line: usize) -> flat::Run {
        if self.comments.is_empty() {
            return flat::Run::default();
        }
        let mut out = Vec::new();
        let first_on_line = self.docs_taken != line;
        self.docs_taken = line;
        let mut l = if first_on_line { line } else { 0 };
        while l > 1 {
            l = l.saturating_sub(1);
            match self.comment(l) {
                Some(c) if c.standalone => out.push(clean_comment(c.text)),
                _ => break,
            }
        }
        out.reverse();
        if let Some(c) = self.comment(line).filter(|c| !c.standalone) {
            out.push(clean_comment(c.text));
        }
        to.push_docs(out.into_iter().filter(|l| !l.trim().is_empty()))
    }

    fn skip_braces(&mut self, line: usize, column: usize) -> Result<(), SchemaError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.next().tok {
                Tok::Punct(b'{') => depth = depth.saturating_add(1),
                Tok::Punct(b'}') => depth = depth.saturating_sub(1),
                Tok::Eof => return self.err(line, column, "unterminated `{`"),
                _ => {}
            }
        }
        Ok(())
    }

    /// A default value or attribute value.
    fn value(&mut self, out: &mut flat::Parsed) -> Result<flat::Lit, SchemaError> {
        let t = self.next();
        match t.tok {
            Tok::Num(s) => Ok(flat::Lit::Num(self.sym(t.at, s.len()))),
            Tok::Str(raw, escaped) => Ok(flat::Lit::Str(self.string_sym(out, &t, raw, escaped))),
            Tok::Ident(text) => {
                let first = Word { text, at: t.at, line: t.line, column: t.column };
                Ok(flat::Lit::Ident(self.dotted_from(out, first)?))
            }
            Tok::Punct(sign @ (b'-' | b'+')) => {
                let name = self.ident()?;
                if name.at == t.at.saturating_add(1) {
                    Ok(flat::Lit::Ident(self.sym(t.at, name.end().saturating_sub(t.at))))
                } else {
                    Ok(flat::Lit::Ident(out.push_signed(sign, name.text)))
                }
            }
            other => self.err(t.line, t.column, format!("expected a value, found {}", other.describe())),
        }
    }

    /// `(a, b: 1, c: "x")`, or nothing.
    fn attrs(&mut self, out: &mut flat::Parsed) -> Result<flat::Run, SchemaError> {
        let start = out.attrs_end();
        if !self.eat(b'(') || self.eat(b')') {
            return Ok(out.attrs_since(start));
        }
        loop {
            let t = self.next();
            let name = match t.tok {
                Tok::Ident(s) => self.sym(t.at, s.len()),
                Tok::Str(raw, escaped) => self.string_sym(out, &t, raw, escaped),
                other => {
                    return self.err(t.line, t.column, format!("expected an attribute, found {}", other.describe()))
                }
            };
            let value = if self.eat(b':') { Some(self.value(out)?) } else { None };
            out.push_attr(flat::Attr { name, value, line: t.line, column: t.column });
            if !self.eat(b',') {
                self.expect(b')')?;
                return Ok(out.attrs_since(start));
            }
        }
    }

    fn ty(&mut self, out: &mut flat::Parsed) -> Result<flat::Type, SchemaError> {
        let (line, column) = self.lex.here();
        if !self.eat(b'[') {
            return Ok(flat::Type::Named(self.dotted(out)?));
        }
        if self.is_punct(b'[') {
            return self.err(line, column, "nested vectors and arrays are not allowed");
        }
        let inner = self.dotted(out)?;
        if self.eat(b':') {
            let t = self.next();
            let n = match &t.tok {
                Tok::Num(s) => s.parse::<u64>().ok().filter(|&n| (1..=65535).contains(&n)),
                _ => None,
            };
            let Some(n) = n else {
                return self.err(
                    t.line,
                    t.column,
                    format!("array length must be 1..=65535, found {}", t.tok.describe()),
                );
            };
            self.expect(b']')?;
            Ok(flat::Type::Array(inner, n))
        } else {
            self.expect(b']')?;
            Ok(flat::Type::Vector(inner))
        }
    }

    /// The rest of a declaration of `kind` whose keyword `d` locates (with its namespace and
    /// file), appended to `out`.
    fn decl(&mut self, out: &mut flat::Parsed, kind: flat::Kind, mut d: flat::Decl) -> Result<(), SchemaError> {
        d.kind = kind;
        d.docs = self.docs(out, d.line);
        let name = self.ident()?;
        d.name = self.sym(name.at, name.text.len());
        if kind == flat::Kind::Enum && self.eat(b':') {
            d.repr = Some(self.dotted(out)?);
        }
        let first_attr = out.attrs_end();
        d.attrs = self.attrs(out)?;
        self.expect(b'{')?;
        let items = out.items_end(kind);
        match kind {
            flat::Kind::Enum => self.enum_values(out)?,
            flat::Kind::Union => self.union_members(out)?,
            flat::Kind::Struct | flat::Kind::Table => self.fields(out)?,
        }
        d.items = out.items_since(kind, items);
        d.all_attrs = out.attrs_since(first_attr);
        out.decls.push(d);
        Ok(())
    }

    fn enum_values(&mut self, out: &mut flat::Parsed) -> Result<(), SchemaError> {
        loop {
            if self.eat(b'}') {
                return Ok(());
            }
            let Word { text, at, line, column } = self.ident()?;
            let name = self.sym(at, text.len());
            let value = if self.eat(b'=') { Some(self.value(out)?) } else { None };
            let attrs = self.attrs(out)?;
            let docs = self.docs(out, line);
            out.push_value(flat::EnumVal { name, value, attrs, docs, line, column });
            if !self.eat(b',') {
                return self.expect(b'}');
            }
        }
    }

    fn union_members(&mut self, out: &mut flat::Parsed) -> Result<(), SchemaError> {
        loop {
            if self.eat(b'}') {
                return Ok(());
            }
            let (line, column) = self.lex.here();
            let first = self.dotted(out)?;
            let (alias, ty) = if self.eat(b':') { (Some(first), self.dotted(out)?) } else { (None, first) };
            let value = if self.eat(b'=') { Some(self.value(out)?) } else { None };
            let attrs = self.attrs(out)?;
            out.push_member(flat::Member { alias, ty, value, attrs, line, column });
            if !self.eat(b',') {
                return self.expect(b'}');
            }
        }
    }

    fn fields(&mut self, out: &mut flat::Parsed) -> Result<(), SchemaError> {
        loop {
            if self.eat(b'}') {
                return Ok(());
            }
            let Word { text, at, line, column } = self.ident()?;
            let name = self.sym(at, text.len());
            self.expect(b':')?;
            let ty = self.ty(out)?;
            let default = if self.eat(b'=') { Some(self.value(out)?) } else { None };
            let attrs = self.attrs(out)?;
            self.expect(b';')?;
            let docs = self.docs(out, line);
            out.push_field(flat::Field { name, ty, default, attrs, docs, line, column });
        }
    }

    /// `rpc_service Name { Method(Request):Response (attrs); ... }`, read and dropped.
    fn rpc_service(&mut self, out: &mut flat::Parsed) -> Result<(), SchemaError> {
        let mark = out.mark();
        self.ident()?;
        self.attrs(out)?;
        self.expect(b'{')?;
        while !self.eat(b'}') {
            self.ident()?;
            self.expect(b'(')?;
            self.dotted(out)?;
            self.expect(b')')?;
            self.expect(b':')?;
            self.dotted(out)?;
            self.attrs(out)?;
            self.expect(b';')?;
        }
        out.cut(mark);
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;
    use alloc::collections::BTreeMap;

    fn one(src: &str) -> Decl {
        let s = parse_str(src, "t.fbs").unwrap();
        assert_eq!(s.decls.len(), 1);
        s.decls.into_iter().next().unwrap()
    }

    #[test]
    fn reads_declarations_in_order_with_lines() {
        let s = parse_str(
            "namespace a.b;\nattribute \"priority\";\nfile_identifier \"ABCD\";\nfile_extension \"x\";\n\n\
             table T { x:int; }\nstruct S { a:byte; }\nenum E : ubyte { A }\nunion U { T }\nroot_type T;\n",
            "t.fbs",
        )
        .unwrap();
        let names: Vec<(&str, usize)> = s.decls.iter().map(|d| (d.name.as_str(), d.line)).collect();
        assert_eq!(names, [("T", 6), ("S", 7), ("E", 8), ("U", 9)]);
        assert!(s.decls.iter().all(|d| d.namespace == "a.b"));
        assert_eq!(s.namespace, "a.b");
        assert_eq!(s.file_identifier.as_deref(), Some("ABCD"));
        assert_eq!(s.root_type, Some(("T".to_string(), "t.fbs:10".to_string())));
        assert_eq!((s.root_namespace.as_str(), s.root_at.1, s.root_at.2), ("a.b", 10, 1));
        assert!(s.user_attributes.contains("priority"));
    }

    #[test]
    fn reads_types_defaults_and_attributes() {
        let d = one("table T {\n  a:[ubyte] (force_align: 16, nested_flatbuffer: \"M\");\n  b:float = -inf;\n  \
             c:x.y.Z = DEFAULT_STORAGE (id: 3);\n  d:double = 1.5e-3;\n}\n");
        let Body::Table { fields } = d.body else { panic!("not a table") };
        assert_eq!(fields[0].ty, Type::Vector(Box::new(Type::Named("ubyte".into()))));
        assert_eq!(fields[0].attrs[0].name, "force_align");
        assert_eq!(fields[0].attrs[0].value, Some(Value::Num("16".into())));
        assert_eq!(fields[0].attrs[1].value, Some(Value::Str("M".into())));
        assert_eq!(fields[1].default, Some(Value::Ident("-inf".into())));
        assert_eq!(fields[2].ty, Type::Named("x.y.Z".into()));
        assert_eq!(fields[2].default, Some(Value::Ident("DEFAULT_STORAGE".into())));
        assert_eq!(fields[2].attrs[0].value, Some(Value::Num("3".into())));
        assert_eq!((fields[2].line, fields[2].column), (4, 3));
        assert_eq!(fields[3].default, Some(Value::Num("1.5e-3".into())));
    }

    #[test]
    fn reads_union_forms_and_fixed_arrays() {
        let d = one("union U { A, B = 5, C: ns.T }");
        let Body::Union { members } = d.body else { panic!("not a union") };
        assert_eq!(members[0].ty, "A");
        assert_eq!(members[1].value, Some(Value::Num("5".into())));
        assert_eq!((members[2].alias.as_deref(), members[2].ty.as_str()), (Some("C"), "ns.T"));
        let d = one("struct S { m:[float:16]; }");
        let Body::Struct { fields } = d.body else { panic!("not a struct") };
        assert_eq!(fields[0].ty, Type::Array(Box::new(Type::Named("float".into())), 16));
    }

    #[test]
    fn comments_above_become_docs() {
        let d = one("// not attached: a blank line follows\n\n// First line.\n///  Second, indented.\n//\n\
             table T {\n  // About x.\n  x:int; // trailing\n  y:int;\n  /* block */ z:int;\n}\n");
        assert_eq!(d.docs, ["First line.", " Second, indented."]);
        assert_eq!(d.line, 6);
        let Body::Table { fields } = d.body else { panic!("not a table") };
        assert_eq!(fields[0].docs, ["About x.", "trailing"]);
        assert!(fields[1].docs.is_empty(), "a trailing comment belongs to its own line's field");
        assert!(fields[2].docs.is_empty());
    }

    #[test]
    fn accepts_rpc_services_json_and_block_comments() {
        let s = parse_str(
            "/* multi\nline */ table Req {}\nrpc_service S { Get(Req):Req (streaming: \"none\"); }\n{ \"a\": { \"b\": 1 } }\n",
            "t.fbs",
        )
        .unwrap();
        assert_eq!(s.decls.len(), 1);
        assert_eq!(s.decls[0].line, 2);
    }

    #[test]
    fn follows_includes_relative_to_the_including_file_once() {
        let files: BTreeMap<&str, &str> = [
            ("dir/main.fbs", "include \"sub/a.fbs\";\ninclude \"b.fbs\";\nnamespace m;\ntable M {}\n"),
            ("dir/sub/a.fbs", "include \"../b.fbs\";\nnamespace a;\ntable A {}\n"),
            ("dir/b.fbs", "namespace b;\nfile_identifier \"BBBB\";\n\ntable B {}\n"),
        ]
        .into_iter()
        .collect();
        let s = parse_with("dir/./main.fbs", &mut |p: &str| {
            files.get(p).map(|s| s.to_string()).ok_or_else(|| format!("missing {p}"))
        })
        .unwrap();
        let got: Vec<(&str, &str, &str, usize)> =
            s.decls.iter().map(|d| (d.name.as_str(), d.namespace.as_str(), d.file.as_str(), d.line)).collect();
        assert_eq!(got, [("B", "b", "b.fbs", 4), ("A", "a", "a.fbs", 3), ("M", "m", "main.fbs", 4)]);
        assert_eq!(s.namespace, "m");
        assert_eq!(s.file_identifier.as_deref(), Some("BBBB"));
    }

    #[test]
    fn include_cycles_are_read_once_and_deep_chains_refused() {
        let cyclic = parse_with("a.fbs", &mut |p: &str| {
            Ok(match p {
                "a.fbs" => "include \"b.fbs\";\ntable A {}\n".to_string(),
                _ => "include \"a.fbs\";\ntable B {}\n".to_string(),
            })
        })
        .unwrap();
        assert_eq!(cyclic.decls.len(), 2);
        // f0 includes f1 includes f2 ...: each a new file.
        let deep = parse_with("f0.fbs", &mut |p: &str| {
            let n: usize = p.trim_start_matches('f').trim_end_matches(".fbs").parse().unwrap_or(0);
            Ok(format!("include \"f{}.fbs\";\n", n + 1))
        })
        .unwrap_err();
        assert!(deep.message.contains("includes nest more than 64 deep"), "{deep}");
    }

    #[test]
    fn malformed_input_reports_the_line_and_column() {
        let cases: &[(&str, &str)] = &[
            ("table T {\n  a:int\n  b:int;\n}\n", "t.fbs:3:3: expected `;`, found `b`"),
            ("table T {\n  a:int;\n", "t.fbs:3:1: expected a name, found end of file"),
            ("enum E : byte {\n  A = ,\n}", "t.fbs:2:7: expected a value, found `,`"),
            ("\n\ntable T { a:[[int]]; }", "t.fbs:3:13: nested vectors and arrays are not allowed"),
            ("struct S { a:[int:0]; }", "t.fbs:1:19: array length must be 1..=65535, found number `0`"),
            ("\ntable T { s:string = \"abc\n; }", "t.fbs:2:22: unterminated string"),
            ("table T {}\n/* open", "t.fbs:2:1: unterminated block comment"),
            ("table T { a:int; } @", "t.fbs:1:20: unexpected character '@'"),
            (
                "\nfile_identifier \"TOOLONG\";",
                "t.fbs:2:1: file_identifier must be 4 printable ASCII characters, got \"TOOLONG\"",
            ),
            ("tabel T {}", "t.fbs:1:1: unknown declaration `tabel`"),
            ("include \"x.fbs\";", "x.fbs: cannot read x.fbs: not in memory\n  (included from t.fbs:1:1)"),
            // A malformed token comes first, wherever it is: before a parse error above it, and
            // before an include is read.
            ("table T { a int; }\n  @", "t.fbs:2:3: unexpected character '@'"),
            ("include \"x.fbs\";\n\"open", "t.fbs:2:1: unterminated string"),
            // Columns count characters, past strings and comments holding more than ASCII.
            ("/* é */ table T { s: string = \"ü\" @ }", "t.fbs:1:35: unexpected character '@'"),
        ];
        for (src, want) in cases {
            assert_eq!(parse_str(src, "t.fbs").unwrap_err().to_string(), *want, "for {src:?}");
        }
    }

    #[test]
    fn word_at_a_time_scans_agree_with_byte_by_byte_ones() {
        // Every byte value at every place of an eight-byte word, then one more byte.
        for b in 0..=255u8 {
            for at in 0..8 {
                let mut name = [b'a'; 9];
                name[at] = b;
                name[8] = b' ';
                let want = if b.is_ascii_alphanumeric() || b == b'_' { 8 } else { at };
                assert_eq!(name_end(&name, 0), want, "byte {b:#x} at {at}");
                let mut line = [b'x'; 9];
                line[at] = b;
                assert_eq!(find_newline(&line), line.iter().position(|&c| c == b'\n'), "byte {b:#x} at {at}");
            }
        }
    }

    #[test]
    fn no_panic_on_truncations() {
        let src = "include \"\";\nnamespace a.b;\nattribute \"x\";\nenum E : byte (bit_flags) { A = 1, B }\n\
                   union U { T, V: T = 3 }\nstruct S (force_align: 8) { a:[int:2]; }\n\
                   table T { a:int = -1 (id: 0); b:[S]; c:float = +inf; }\nrpc_service R { M(T):T; }\n";
        for end in 0..=src.len() {
            if src.is_char_boundary(end) {
                let _ = parse_str(&src[..end], "t.fbs");
            }
        }
    }
}
