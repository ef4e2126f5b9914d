//! The `.fbs` reader: a lexer and a parser into a schema model that keeps every declaration in
//! order, with its file, line, column and the comments written just above it.
//!
//! Every function here returns a [`SchemaError`] (file, line, column, message) on malformed
//! input; none panics, and the work and memory are linear in the text read. Includes are read
//! through a caller's loader, at most [`MAX_INCLUDE_DEPTH`] deep and each file once.
//!
//! This file needs only `core` and `alloc`: the layout generator (`tests/codegen`) compiles it
//! too, so the compiled-in schemas and the run-time ones are read by the same parser.

use alloc::boxed::Box;
use alloc::collections::{BTreeMap, BTreeSet};
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
    let mut st = State { schema: Schema::default(), seen: BTreeSet::new(), docs };
    parse_one(&mut st, &normalize(path), load, true, 0)?;
    Ok(st.schema)
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

struct State {
    schema: Schema,
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

fn parse_one(
    st: &mut State,
    path: &str,
    load: &mut Loader<'_>,
    is_main: bool,
    depth: usize,
) -> Result<(), SchemaError> {
    if !st.seen.insert(path.to_string()) {
        return Ok(());
    }
    let file = file_name(path).to_string();
    if st.seen.len() > MAX_FILES {
        return Err(SchemaError::at(&file, 0, 0, format!("more than {MAX_FILES} schema files")));
    }
    let src = load(path).map_err(|message| SchemaError::at(path, 0, 0, message))?;
    let (toks, comments) = lex(&src, &file, st.docs)?;
    let mut p = Parser { toks, pos: 0, comments, file: file.clone(), docs_taken: 0 };
    let mut namespace = String::new();
    loop {
        let t = p.next();
        let (line, column) = (t.line, t.column);
        let kw = match t.tok {
            Tok::Eof => break,
            Tok::Ident(kw) => kw,
            Tok::Punct('{') => {
                // A JSON object in a schema file: data, not declarations.
                p.skip_braces(line, column)?;
                continue;
            }
            other => return p.err(line, column, format!("expected a declaration, found {}", other.describe())),
        };
        match kw.as_str() {
            "include" | "native_include" => {
                let name = p.string()?;
                p.expect(';')?;
                if kw == "include" {
                    if depth >= MAX_INCLUDE_DEPTH {
                        return p.err(line, column, format!("includes nest more than {MAX_INCLUDE_DEPTH} deep"));
                    }
                    let inc = normalize(&format!("{}{name}", directory(path)));
                    parse_one(st, &inc, load, false, depth.saturating_add(1)).map_err(|mut e| {
                        e.message = format!("{}\n  (included from {file}:{line}:{column})", e.message);
                        e
                    })?;
                }
            }
            "namespace" => {
                namespace = p.dotted()?;
                st.schema.namespace = namespace.clone();
                p.expect(';')?;
            }
            "attribute" => {
                let name = match p.next() {
                    Token { tok: Tok::Str(s) | Tok::Ident(s), .. } => s,
                    t => {
                        return p.err(
                            t.line,
                            t.column,
                            format!("expected an attribute name, found {}", t.tok.describe()),
                        )
                    }
                };
                st.schema.user_attributes.insert(name);
                p.expect(';')?;
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
                p.expect(';')?;
                if is_main || st.schema.file_identifier.is_none() {
                    st.schema.file_identifier = Some(id);
                }
            }
            "file_extension" => {
                p.string()?;
                p.expect(';')?;
            }
            "root_type" => {
                let name = p.dotted()?;
                p.expect(';')?;
                if is_main || st.schema.root_type.is_none() {
                    st.schema.root_type = Some((name, format!("{file}:{line}")));
                    st.schema.root_namespace = namespace.clone();
                    st.schema.root_at = (file.clone(), line, column);
                }
            }
            "enum" | "union" | "struct" | "table" => {
                let decl = p.decl(&kw, line, column, &namespace)?;
                st.schema.decls.push(decl);
            }
            "rpc_service" => p.rpc_service()?,
            other => return p.err(line, column, format!("unknown declaration `{other}`")),
        }
    }
    Ok(())
}

// ---- lexer ------------------------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    Punct(char),
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::Num(s) => format!("number `{s}`"),
            Tok::Punct(c) => format!("`{c}`"),
            Tok::Eof => "end of file".to_string(),
        }
    }
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
    column: usize,
}

/// A `//` comment: its text after the slashes, and whether it is alone on its line.
#[derive(Clone, Debug)]
struct Comment {
    text: String,
    standalone: bool,
}

/// A cursor over the bytes of a source text that knows its line and column (in characters).
/// The syntax is ASCII, so the lexer looks at bytes; other characters only pass through
/// strings and comments, or are refused.
struct Cursor<'s> {
    src: &'s str,
    at: usize,
    line: usize,
    column: usize,
}

impl<'s> Cursor<'s> {
    fn new(src: &'s str) -> Self {
        Cursor { src, at: 0, line: 1, column: 1 }
    }

    /// The byte `n` ahead (0: the next).
    fn ahead(&self, n: usize) -> Option<u8> {
        self.src.as_bytes().get(self.at.saturating_add(n)).copied()
    }

    fn peek(&self) -> Option<u8> {
        self.ahead(0)
    }

    fn bump(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at = self.at.saturating_add(1);
        if b == b'\n' {
            self.line = self.line.saturating_add(1);
            self.column = 1;
        } else if b & 0xC0 != 0x80 {
            // Not a UTF-8 continuation byte: a new character.
            self.column = self.column.saturating_add(1);
        }
        Some(b)
    }

    /// The text from byte `start` to here.
    fn since(&self, start: usize) -> &'s str {
        self.src.get(start..self.at).unwrap_or("")
    }

    /// The character here (for the few places that look past ASCII).
    fn char(&self) -> Option<char> {
        self.src.get(self.at..).and_then(|r| r.chars().next())
    }
}

/// The tokens of `src`, and its `//` comments by line when `docs`.
fn lex(src: &str, file: &str, docs: bool) -> Result<(Vec<Token>, BTreeMap<usize, Comment>), SchemaError> {
    let mut cur = Cursor::new(src);
    let mut toks = Vec::new();
    let mut comments = BTreeMap::new();
    let mut line_has_token = false;
    let digit = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_digit());
    while let Some(c) = cur.peek() {
        let (line, column) = (cur.line, cur.column);
        if c == b'\n' {
            cur.bump();
            line_has_token = false;
        } else if c.is_ascii_whitespace() {
            cur.bump();
        } else if c == b'/' && cur.ahead(1) == Some(b'/') {
            cur.bump();
            cur.bump();
            let start = cur.at;
            while cur.peek().is_some_and(|c| c != b'\n') {
                cur.bump();
            }
            if docs {
                comments.insert(line, Comment { text: cur.since(start).to_string(), standalone: !line_has_token });
            }
        } else if c == b'/' && cur.ahead(1) == Some(b'*') {
            cur.bump();
            cur.bump();
            loop {
                match cur.bump() {
                    None => return Err(SchemaError::at(file, line, column, "unterminated block comment")),
                    Some(b'*') if cur.peek() == Some(b'/') => {
                        cur.bump();
                        break;
                    }
                    Some(b'\n') => line_has_token = false,
                    Some(_) => {}
                }
            }
        } else if c == b'"' {
            cur.bump();
            let mut s = String::new();
            let mut start = cur.at;
            loop {
                match cur.peek() {
                    None | Some(b'\n') => return Err(SchemaError::at(file, line, column, "unterminated string")),
                    Some(b'"') => {
                        s.push_str(cur.since(start));
                        cur.bump();
                        break;
                    }
                    Some(b'\\') => {
                        s.push_str(cur.since(start));
                        cur.bump();
                        let Some(e) = cur.char().filter(|&e| e != '\n') else {
                            return Err(SchemaError::at(file, line, column, "unterminated string"));
                        };
                        for _ in 0..e.len_utf8() {
                            cur.bump();
                        }
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            other => other,
                        });
                        start = cur.at;
                    }
                    Some(_) => {
                        cur.bump();
                    }
                }
            }
            toks.push(Token { tok: Tok::Str(s), line, column });
            line_has_token = true;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = cur.at;
            while cur.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
                cur.bump();
            }
            toks.push(Token { tok: Tok::Ident(cur.since(start).to_string()), line, column });
            line_has_token = true;
        } else if c.is_ascii_digit()
            || ((c == b'-' || c == b'+' || c == b'.') && digit(cur.ahead(1)))
            || ((c == b'-' || c == b'+') && cur.ahead(1) == Some(b'.') && digit(cur.ahead(2)))
        {
            let start = cur.at;
            cur.bump();
            let mut prev = c;
            let mut hex = false;
            while let Some(d) = cur.peek() {
                hex |= prev == b'x' || prev == b'X';
                let exponent_sign = (d == b'-' || d == b'+') && !hex && (prev == b'e' || prev == b'E');
                if !(d.is_ascii_alphanumeric() || d == b'.' || exponent_sign) {
                    break;
                }
                prev = d;
                cur.bump();
            }
            toks.push(Token { tok: Tok::Num(cur.since(start).to_string()), line, column });
            line_has_token = true;
        } else if b"{}()[]:;,=.-+".contains(&c) {
            toks.push(Token { tok: Tok::Punct(char::from(c)), line, column });
            line_has_token = true;
            cur.bump();
        } else {
            // Past ASCII: Unicode white space (and a byte-order mark) is skipped, the rest refused.
            match cur.char() {
                Some(ch) if ch.is_whitespace() || ch == '\u{feff}' => {
                    for _ in 0..ch.len_utf8() {
                        cur.bump();
                    }
                }
                ch => {
                    let ch = ch.unwrap_or(char::REPLACEMENT_CHARACTER);
                    return Err(SchemaError::at(file, line, column, format!("unexpected character {ch:?}")));
                }
            }
        }
    }
    toks.push(Token { tok: Tok::Eof, line: cur.line, column: cur.column });
    Ok((toks, comments))
}

/// A comment's text as a doc line: without the slashes and one leading space, tabs expanded,
/// and nothing that could close the code block the generator wraps docs in.
fn clean_comment(raw: &str) -> String {
    let t = raw.strip_prefix('/').unwrap_or(raw);
    let t = t.strip_prefix(' ').unwrap_or(t);
    t.replace('\t', "    ").replace('\r', "").replace("```", "'''").trim_end().to_string()
}

// ---- parser -----------------------------------------------------------------------------------

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    comments: BTreeMap<usize, Comment>,
    file: String,
    /// The line whose comment block above was last given out as docs: a block documents the
    /// first item of the line below it only (so reading it stays linear in the text).
    docs_taken: usize,
}

const EOF: Token = Token { tok: Tok::Eof, line: 0, column: 0 };

impl Parser {
    fn peek(&self) -> &Token {
        self.toks.get(self.pos).or(self.toks.last()).unwrap_or(&EOF)
    }

    /// Takes the next token (each is read once; the last, end of file, stays).
    fn next(&mut self) -> Token {
        let last = self.toks.len().saturating_sub(1);
        if self.pos >= last {
            return self.peek().clone();
        }
        let at = self.pos;
        self.pos = self.pos.saturating_add(1);
        match self.toks.get_mut(at) {
            Some(t) => core::mem::replace(t, Token { tok: Tok::Eof, line: t.line, column: t.column }),
            None => EOF,
        }
    }

    fn err<T>(&self, line: usize, column: usize, msg: impl fmt::Display) -> Result<T, SchemaError> {
        Err(SchemaError::at(&self.file, line, column, msg.to_string()))
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek().tok == Tok::Punct(c)
    }

    /// Consumes `c` if it is next.
    fn eat(&mut self, c: char) -> bool {
        let hit = self.is_punct(c);
        if hit {
            self.next();
        }
        hit
    }

    fn expect(&mut self, c: char) -> Result<(), SchemaError> {
        let t = self.next();
        if t.tok == Tok::Punct(c) {
            Ok(())
        } else {
            self.err(t.line, t.column, format!("expected `{c}`, found {}", t.tok.describe()))
        }
    }

    /// A name and where it is.
    fn ident(&mut self) -> Result<(String, usize, usize), SchemaError> {
        match self.next() {
            Token { tok: Tok::Ident(s), line, column } => Ok((s, line, column)),
            t => self.err(t.line, t.column, format!("expected a name, found {}", t.tok.describe())),
        }
    }

    fn string(&mut self) -> Result<String, SchemaError> {
        match self.next() {
            Token { tok: Tok::Str(s), .. } => Ok(s),
            t => self.err(t.line, t.column, format!("expected a string, found {}", t.tok.describe())),
        }
    }

    /// `a.b.c`.
    fn dotted(&mut self) -> Result<String, SchemaError> {
        let (mut name, _, _) = self.ident()?;
        while self.eat('.') {
            let (part, _, _) = self.ident()?;
            name.push('.');
            name.push_str(&part);
        }
        Ok(name)
    }

    /// The standalone comment lines directly above `line` (no blank line between), for the
    /// first item of the line only, then a comment trailing on `line` itself.
    fn docs(&mut self, line: usize) -> Vec<String> {
        let mut out = Vec::new();
        if self.comments.is_empty() {
            return out;
        }
        let first_on_line = self.docs_taken != line;
        self.docs_taken = line;
        let mut l = if first_on_line { line } else { 0 };
        while l > 1 {
            l = l.saturating_sub(1);
            match self.comments.get(&l) {
                Some(c) if c.standalone => out.push(clean_comment(&c.text)),
                _ => break,
            }
        }
        out.reverse();
        if let Some(c) = self.comments.get(&line).filter(|c| !c.standalone) {
            out.push(clean_comment(&c.text));
        }
        out.retain(|l| !l.trim().is_empty());
        out
    }

    fn skip_braces(&mut self, line: usize, column: usize) -> Result<(), SchemaError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.next().tok {
                Tok::Punct('{') => depth = depth.saturating_add(1),
                Tok::Punct('}') => depth = depth.saturating_sub(1),
                Tok::Eof => return self.err(line, column, "unterminated `{`"),
                _ => {}
            }
        }
        Ok(())
    }

    /// A default value or attribute value.
    fn value(&mut self) -> Result<Value, SchemaError> {
        let t = self.next();
        match t.tok {
            Tok::Num(s) => Ok(Value::Num(s)),
            Tok::Str(s) => Ok(Value::Str(s)),
            Tok::Ident(mut s) => {
                while self.eat('.') {
                    let (part, _, _) = self.ident()?;
                    s.push('.');
                    s.push_str(&part);
                }
                Ok(Value::Ident(s))
            }
            Tok::Punct(sign @ ('-' | '+')) => {
                let (name, _, _) = self.ident()?;
                Ok(Value::Ident(format!("{sign}{name}")))
            }
            other => self.err(t.line, t.column, format!("expected a value, found {}", other.describe())),
        }
    }

    /// `(a, b: 1, c: "x")`, or nothing.
    fn attrs(&mut self) -> Result<Vec<Attr>, SchemaError> {
        let mut out = Vec::new();
        if !self.eat('(') {
            return Ok(out);
        }
        if self.eat(')') {
            return Ok(out);
        }
        loop {
            let t = self.next();
            let name = match t.tok {
                Tok::Ident(s) | Tok::Str(s) => s,
                other => {
                    return self.err(t.line, t.column, format!("expected an attribute, found {}", other.describe()))
                }
            };
            let value = if self.eat(':') { Some(self.value()?) } else { None };
            out.push(Attr { name, value, line: t.line, column: t.column });
            if !self.eat(',') {
                self.expect(')')?;
                return Ok(out);
            }
        }
    }

    fn ty(&mut self) -> Result<Type, SchemaError> {
        let (line, column) = (self.peek().line, self.peek().column);
        if !self.eat('[') {
            return Ok(Type::Named(self.dotted()?));
        }
        if self.is_punct('[') {
            return self.err(line, column, "nested vectors and arrays are not allowed");
        }
        let inner = Type::Named(self.dotted()?);
        if self.eat(':') {
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
            self.expect(']')?;
            Ok(Type::Array(Box::new(inner), n))
        } else {
            self.expect(']')?;
            Ok(Type::Vector(Box::new(inner)))
        }
    }

    fn decl(&mut self, kw: &str, line: usize, column: usize, namespace: &str) -> Result<Decl, SchemaError> {
        let docs = self.docs(line);
        let (name, _, _) = self.ident()?;
        let mut repr = None;
        if kw == "enum" && self.eat(':') {
            repr = Some(self.dotted()?);
        }
        let attrs = self.attrs()?;
        self.expect('{')?;
        let body = match kw {
            "enum" => Body::Enum { repr, values: self.enum_values()? },
            "union" => Body::Union { members: self.union_members()? },
            "struct" => Body::Struct { fields: self.fields()? },
            _ => Body::Table { fields: self.fields()? },
        };
        let namespace = namespace.to_string();
        Ok(Decl { name, namespace, file: self.file.clone(), line, column, docs, attrs, body })
    }

    fn enum_values(&mut self) -> Result<Vec<EnumVal>, SchemaError> {
        let mut out = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(out);
            }
            let (name, line, column) = self.ident()?;
            let value = if self.eat('=') { Some(self.value()?) } else { None };
            let attrs = self.attrs()?;
            out.push(EnumVal { name, value, attrs, docs: self.docs(line), line, column });
            if !self.eat(',') {
                self.expect('}')?;
                return Ok(out);
            }
        }
    }

    fn union_members(&mut self) -> Result<Vec<UnionMember>, SchemaError> {
        let mut out = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(out);
            }
            let (line, column) = (self.peek().line, self.peek().column);
            let first = self.dotted()?;
            let (alias, ty) = if self.eat(':') { (Some(first), self.dotted()?) } else { (None, first) };
            let value = if self.eat('=') { Some(self.value()?) } else { None };
            let attrs = self.attrs()?;
            out.push(UnionMember { alias, ty, value, attrs, line, column });
            if !self.eat(',') {
                self.expect('}')?;
                return Ok(out);
            }
        }
    }

    fn fields(&mut self) -> Result<Vec<Field>, SchemaError> {
        let mut out = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(out);
            }
            let (name, line, column) = self.ident()?;
            self.expect(':')?;
            let ty = self.ty()?;
            let default = if self.eat('=') { Some(self.value()?) } else { None };
            let attrs = self.attrs()?;
            self.expect(';')?;
            out.push(Field { name, ty, default, attrs, docs: self.docs(line), line, column });
        }
    }

    /// `rpc_service Name { Method(Request):Response (attrs); ... }`, read and dropped.
    fn rpc_service(&mut self) -> Result<(), SchemaError> {
        self.ident()?;
        self.attrs()?;
        self.expect('{')?;
        while !self.eat('}') {
            self.ident()?;
            self.expect('(')?;
            self.dotted()?;
            self.expect(')')?;
            self.expect(':')?;
            self.dotted()?;
            self.attrs()?;
            self.expect(';')?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    use super::*;

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
        ];
        for (src, want) in cases {
            assert_eq!(parse_str(src, "t.fbs").unwrap_err().to_string(), *want, "for {src:?}");
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
