//! The `.fbs` reader: a lexer and a parser into a schema model that keeps every declaration in
//! order, with its file, line and the comments written just above it.
//!
//! Every function here returns `Err("file.fbs:LINE: message")` on malformed input; none panics.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

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
    pub name: String,
    pub value: Option<Value>,
    pub line: usize,
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
    pub name: String,
    pub ty: Type,
    pub default: Option<Value>,
    pub attrs: Vec<Attr>,
    pub docs: Vec<String>,
    pub line: usize,
}

/// An enum value: `NAME` or `NAME = value`.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumVal {
    pub name: String,
    pub value: Option<Value>,
    pub attrs: Vec<Attr>,
    pub docs: Vec<String>,
    pub line: usize,
}

/// A union member: `Type`, `Alias: Type`, optionally `= value`.
#[derive(Clone, Debug, PartialEq)]
pub struct UnionMember {
    pub alias: Option<String>,
    pub ty: String,
    pub value: Option<Value>,
    pub attrs: Vec<Attr>,
    pub line: usize,
}

/// What a declaration declares.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    Enum { repr: Option<String>, values: Vec<EnumVal> },
    Union { members: Vec<UnionMember> },
    Struct { fields: Vec<Field> },
    Table { fields: Vec<Field> },
}

/// An `enum`, `union`, `struct` or `table` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub name: String,
    /// The file name (no directory) of the schema file that declares it.
    pub file: String,
    /// 1-based line of the `table`/`struct`/`enum`/`union` keyword.
    pub line: usize,
    pub docs: Vec<String>,
    pub attrs: Vec<Attr>,
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
    /// `root_type` and where it was declared (`file:line`).
    pub root_type: Option<(String, String)>,
    /// Names declared with `attribute "x";`.
    pub user_attributes: HashSet<String>,
}

/// Parses the schema at `path`, following its includes, reading files from disk.
pub fn parse_file(path: &Path) -> Result<Schema, String> {
    parse_with(path, &mut |p: &Path| {
        std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()))
    })
}

/// Parses the schema at `path`, reading it and its includes through `load`.
pub fn parse_with(path: &Path, load: &mut dyn FnMut(&Path) -> Result<String, String>) -> Result<Schema, String> {
    let mut st = State { schema: Schema::default(), seen: HashSet::new() };
    parse_one(&mut st, &normalize(path), load, true)?;
    Ok(st.schema)
}

/// Parses a single in-memory schema named `file` (includes are an error).
pub fn parse_str(src: &str, file: &str) -> Result<Schema, String> {
    let text = src.to_string();
    parse_with(Path::new(file), &mut |p: &Path| {
        if p == Path::new(file) {
            Ok(text.clone())
        } else {
            Err(format!("cannot read {}: not in memory", p.display()))
        }
    })
}

struct State {
    schema: Schema,
    seen: HashSet<PathBuf>,
}

/// Resolves `.` and `..` lexically, so one file included twice is read once.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn parse_one(
    st: &mut State,
    path: &Path,
    load: &mut dyn FnMut(&Path) -> Result<String, String>,
    is_main: bool,
) -> Result<(), String> {
    if !st.seen.insert(path.to_path_buf()) {
        return Ok(());
    }
    let src = load(path)?;
    let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let (toks, comments) = lex(&src, &file)?;
    let mut p = Parser { toks, pos: 0, comments, file: file.clone() };
    loop {
        let t = p.next();
        let line = t.line;
        let kw = match t.tok {
            Tok::Eof => break,
            Tok::Ident(kw) => kw,
            Tok::Punct('{') => {
                // A JSON object in a schema file: data, not declarations.
                p.skip_braces(line)?;
                continue;
            }
            other => return p.err(line, format!("expected a declaration, found {}", other.describe())),
        };
        match kw.as_str() {
            "include" | "native_include" => {
                let name = p.string()?;
                p.expect(';')?;
                if kw == "include" {
                    let dir = path.parent().unwrap_or(Path::new(""));
                    let inc = normalize(&dir.join(&name));
                    parse_one(st, &inc, load, false).map_err(|e| format!("{e}\n  (included from {file}:{line})"))?;
                }
            }
            "namespace" => {
                st.schema.namespace = p.dotted()?;
                p.expect(';')?;
            }
            "attribute" => {
                let name = match p.next() {
                    Token { tok: Tok::Str(s) | Tok::Ident(s), .. } => s,
                    t => return p.err(t.line, format!("expected an attribute name, found {}", t.tok.describe())),
                };
                st.schema.user_attributes.insert(name);
                p.expect(';')?;
            }
            "file_identifier" => {
                let id = p.string()?;
                if id.len() != 4 || !id.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\') {
                    return p.err(line, format!("file_identifier must be 4 printable ASCII characters, got {id:?}"));
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
                }
            }
            "enum" | "union" | "struct" | "table" => {
                let decl = p.decl(&kw, line)?;
                st.schema.decls.push(decl);
            }
            "rpc_service" => p.rpc_service()?,
            other => return p.err(line, format!("unknown declaration `{other}`")),
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
}

/// A `//` comment: its text after the slashes, and whether it is alone on its line.
#[derive(Clone, Debug)]
struct Comment {
    text: String,
    standalone: bool,
}

fn lex(src: &str, file: &str) -> Result<(Vec<Token>, HashMap<usize, Comment>), String> {
    let chars: Vec<char> = src.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let mut toks = Vec::new();
    let mut comments = HashMap::new();
    let mut line = 1;
    let mut line_has_token = false;
    let mut i = 0;
    while i < chars.len() {
        let c = at(i);
        if c == '\n' {
            line += 1;
            line_has_token = false;
            i += 1;
        } else if c.is_whitespace() || c == '\u{feff}' {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            let start = i + 2;
            let mut end = start;
            while end < chars.len() && at(end) != '\n' {
                end += 1;
            }
            let text: String = chars.get(start..end).map(|s| s.iter().collect()).unwrap_or_default();
            comments.insert(line, Comment { text, standalone: !line_has_token });
            i = end;
        } else if c == '/' && at(i + 1) == '*' {
            let open = line;
            i += 2;
            loop {
                if i >= chars.len() {
                    return Err(format!("{file}:{open}: unterminated block comment"));
                }
                if at(i) == '*' && at(i + 1) == '/' {
                    i += 2;
                    break;
                }
                if at(i) == '\n' {
                    line += 1;
                    line_has_token = false;
                }
                i += 1;
            }
        } else if c == '"' {
            let mut s = String::new();
            i += 1;
            loop {
                if i >= chars.len() || at(i) == '\n' {
                    return Err(format!("{file}:{line}: unterminated string"));
                }
                match at(i) {
                    '"' => break,
                    '\\' => {
                        i += 1;
                        let e = at(i);
                        if e == '\n' || i >= chars.len() {
                            return Err(format!("{file}:{line}: unterminated string"));
                        }
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            other => other,
                        });
                    }
                    other => s.push(other),
                }
                i += 1;
            }
            i += 1;
            toks.push(Token { tok: Tok::Str(s), line });
            line_has_token = true;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while at(i).is_ascii_alphanumeric() || at(i) == '_' {
                i += 1;
            }
            let s: String = chars.get(start..i).map(|s| s.iter().collect()).unwrap_or_default();
            toks.push(Token { tok: Tok::Ident(s), line });
            line_has_token = true;
        } else if c.is_ascii_digit()
            || ((c == '-' || c == '+' || c == '.') && at(i + 1).is_ascii_digit())
            || ((c == '-' || c == '+') && at(i + 1) == '.' && at(i + 2).is_ascii_digit())
        {
            let start = i;
            i += 1;
            loop {
                let d = at(i);
                let prev = at(i - 1);
                let hex = chars.get(start..i).is_some_and(|s| s.iter().any(|&x| x == 'x' || x == 'X'));
                if d.is_ascii_alphanumeric()
                    || d == '.'
                    || ((d == '-' || d == '+') && !hex && (prev == 'e' || prev == 'E'))
                {
                    i += 1;
                } else {
                    break;
                }
            }
            let s: String = chars.get(start..i).map(|s| s.iter().collect()).unwrap_or_default();
            toks.push(Token { tok: Tok::Num(s), line });
            line_has_token = true;
        } else if "{}()[]:;,=.-+".contains(c) {
            toks.push(Token { tok: Tok::Punct(c), line });
            line_has_token = true;
            i += 1;
        } else {
            return Err(format!("{file}:{line}: unexpected character {c:?}"));
        }
    }
    toks.push(Token { tok: Tok::Eof, line });
    Ok((toks, comments))
}

/// A comment's text as a doc line: without the slashes and one leading space, tabs expanded,
/// and nothing that could close the code block the emitter wraps docs in.
fn clean_comment(raw: &str) -> String {
    let t = raw.strip_prefix('/').unwrap_or(raw);
    let t = t.strip_prefix(' ').unwrap_or(t);
    t.replace('\t', "    ").replace('\r', "").replace("```", "'''").trim_end().to_string()
}

// ---- parser -----------------------------------------------------------------------------------

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    comments: HashMap<usize, Comment>,
    file: String,
}

const EOF: Token = Token { tok: Tok::Eof, line: 0 };

impl Parser {
    fn peek(&self) -> &Token {
        self.toks.get(self.pos).or(self.toks.last()).unwrap_or(&EOF)
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn err<T>(&self, line: usize, msg: impl std::fmt::Display) -> Result<T, String> {
        Err(format!("{}:{line}: {msg}", self.file))
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

    fn expect(&mut self, c: char) -> Result<(), String> {
        let t = self.next();
        if t.tok == Tok::Punct(c) {
            Ok(())
        } else {
            self.err(t.line, format!("expected `{c}`, found {}", t.tok.describe()))
        }
    }

    fn ident(&mut self) -> Result<(String, usize), String> {
        match self.next() {
            Token { tok: Tok::Ident(s), line } => Ok((s, line)),
            t => self.err(t.line, format!("expected a name, found {}", t.tok.describe())),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        match self.next() {
            Token { tok: Tok::Str(s), .. } => Ok(s),
            t => self.err(t.line, format!("expected a string, found {}", t.tok.describe())),
        }
    }

    /// `a.b.c`.
    fn dotted(&mut self) -> Result<String, String> {
        let (mut name, _) = self.ident()?;
        while self.eat('.') {
            let (part, _) = self.ident()?;
            name.push('.');
            name.push_str(&part);
        }
        Ok(name)
    }

    /// The standalone comment lines directly above `line` (no blank line between), then a
    /// comment trailing on `line` itself.
    fn docs(&self, line: usize) -> Vec<String> {
        let mut out = Vec::new();
        let mut l = line;
        while l > 1 {
            l -= 1;
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

    fn skip_braces(&mut self, open: usize) -> Result<(), String> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.next().tok {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                Tok::Eof => return self.err(open, "unterminated `{`"),
                _ => {}
            }
        }
        Ok(())
    }

    /// A default value or attribute value.
    fn value(&mut self) -> Result<Value, String> {
        let t = self.next();
        match t.tok {
            Tok::Num(s) => Ok(Value::Num(s)),
            Tok::Str(s) => Ok(Value::Str(s)),
            Tok::Ident(mut s) => {
                while self.eat('.') {
                    let (part, _) = self.ident()?;
                    s.push('.');
                    s.push_str(&part);
                }
                Ok(Value::Ident(s))
            }
            Tok::Punct(sign @ ('-' | '+')) => {
                let (name, _) = self.ident()?;
                Ok(Value::Ident(format!("{sign}{name}")))
            }
            other => self.err(t.line, format!("expected a value, found {}", other.describe())),
        }
    }

    /// `(a, b: 1, c: "x")`, or nothing.
    fn attrs(&mut self) -> Result<Vec<Attr>, String> {
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
                other => return self.err(t.line, format!("expected an attribute, found {}", other.describe())),
            };
            let value = if self.eat(':') { Some(self.value()?) } else { None };
            out.push(Attr { name, value, line: t.line });
            if !self.eat(',') {
                self.expect(')')?;
                return Ok(out);
            }
        }
    }

    fn ty(&mut self) -> Result<Type, String> {
        let line = self.peek().line;
        if !self.eat('[') {
            return Ok(Type::Named(self.dotted()?));
        }
        let inner = self.ty()?;
        if !matches!(inner, Type::Named(_)) {
            return self.err(line, "nested vectors and arrays are not allowed");
        }
        if self.eat(':') {
            let t = self.next();
            let n = match &t.tok {
                Tok::Num(s) => s.parse::<u64>().ok().filter(|&n| (1..=65535).contains(&n)),
                _ => None,
            };
            let Some(n) = n else {
                return self.err(t.line, format!("array length must be 1..=65535, found {}", t.tok.describe()));
            };
            self.expect(']')?;
            Ok(Type::Array(Box::new(inner), n))
        } else {
            self.expect(']')?;
            Ok(Type::Vector(Box::new(inner)))
        }
    }

    fn decl(&mut self, kw: &str, line: usize) -> Result<Decl, String> {
        let docs = self.docs(line);
        let (name, _) = self.ident()?;
        let body_kind = kw;
        let mut repr = None;
        if body_kind == "enum" && self.eat(':') {
            repr = Some(self.dotted()?);
        }
        let attrs = self.attrs()?;
        self.expect('{')?;
        let body = match body_kind {
            "enum" => Body::Enum { repr, values: self.enum_values()? },
            "union" => Body::Union { members: self.union_members()? },
            "struct" => Body::Struct { fields: self.fields()? },
            _ => Body::Table { fields: self.fields()? },
        };
        Ok(Decl { name, file: self.file.clone(), line, docs, attrs, body })
    }

    fn enum_values(&mut self) -> Result<Vec<EnumVal>, String> {
        let mut out = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(out);
            }
            let (name, line) = self.ident()?;
            let value = if self.eat('=') { Some(self.value()?) } else { None };
            let attrs = self.attrs()?;
            out.push(EnumVal { name, value, attrs, docs: self.docs(line), line });
            if !self.eat(',') {
                self.expect('}')?;
                return Ok(out);
            }
        }
    }

    fn union_members(&mut self) -> Result<Vec<UnionMember>, String> {
        let mut out = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(out);
            }
            let line = self.peek().line;
            let first = self.dotted()?;
            let (alias, ty) = if self.eat(':') { (Some(first), self.dotted()?) } else { (None, first) };
            let value = if self.eat('=') { Some(self.value()?) } else { None };
            let attrs = self.attrs()?;
            out.push(UnionMember { alias, ty, value, attrs, line });
            if !self.eat(',') {
                self.expect('}')?;
                return Ok(out);
            }
        }
    }

    fn fields(&mut self) -> Result<Vec<Field>, String> {
        let mut out = Vec::new();
        loop {
            if self.eat('}') {
                return Ok(out);
            }
            let (name, line) = self.ident()?;
            self.expect(':')?;
            let ty = self.ty()?;
            let default = if self.eat('=') { Some(self.value()?) } else { None };
            let attrs = self.attrs()?;
            self.expect(';')?;
            out.push(Field { name, ty, default, attrs, docs: self.docs(line), line });
        }
    }

    /// `rpc_service Name { Method(Request):Response (attrs); ... }`, read and dropped.
    fn rpc_service(&mut self) -> Result<(), String> {
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
        assert_eq!(s.namespace, "a.b");
        assert_eq!(s.file_identifier.as_deref(), Some("ABCD"));
        assert_eq!(s.root_type, Some(("T".to_string(), "t.fbs:10".to_string())));
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
        assert_eq!(fields[2].line, 4);
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
        let files: HashMap<PathBuf, &str> = [
            (PathBuf::from("dir/main.fbs"), "include \"sub/a.fbs\";\ninclude \"b.fbs\";\nnamespace m;\ntable M {}\n"),
            (PathBuf::from("dir/sub/a.fbs"), "include \"../b.fbs\";\nnamespace a;\ntable A {}\n"),
            (PathBuf::from("dir/b.fbs"), "namespace b;\nfile_identifier \"BBBB\";\n\ntable B {}\n"),
        ]
        .into_iter()
        .collect();
        let s = parse_with(Path::new("dir/main.fbs"), &mut |p: &Path| {
            files.get(p).map(|s| s.to_string()).ok_or_else(|| format!("missing {}", p.display()))
        })
        .unwrap();
        let got: Vec<(&str, &str, usize)> =
            s.decls.iter().map(|d| (d.name.as_str(), d.file.as_str(), d.line)).collect();
        assert_eq!(got, [("B", "b.fbs", 4), ("A", "a.fbs", 3), ("M", "main.fbs", 4)]);
        assert_eq!(s.namespace, "m");
        assert_eq!(s.file_identifier.as_deref(), Some("BBBB"));
    }

    #[test]
    fn malformed_input_reports_the_line() {
        let cases: &[(&str, &str)] = &[
            ("table T {\n  a:int\n  b:int;\n}\n", "t.fbs:3: expected `;`, found `b`"),
            ("table T {\n  a:int;\n", "t.fbs:3: expected a name, found end of file"),
            ("enum E : byte {\n  A = ,\n}", "t.fbs:2: expected a value, found `,`"),
            ("\n\ntable T { a:[[int]]; }", "t.fbs:3: nested vectors and arrays are not allowed"),
            ("struct S { a:[int:0]; }", "t.fbs:1: array length must be 1..=65535, found number `0`"),
            ("\ntable T { s:string = \"abc\n; }", "t.fbs:2: unterminated string"),
            ("table T {}\n/* open", "t.fbs:2: unterminated block comment"),
            ("table T { a:int; } @", "t.fbs:1: unexpected character '@'"),
            (
                "\nfile_identifier \"TOOLONG\";",
                "t.fbs:2: file_identifier must be 4 printable ASCII characters, got \"TOOLONG\"",
            ),
            ("tabel T {}", "t.fbs:1: unknown declaration `tabel`"),
            ("include \"x.fbs\";", "cannot read x.fbs: not in memory\n  (included from t.fbs:1)"),
        ];
        for (src, want) in cases {
            assert_eq!(parse_str(src, "t.fbs").unwrap_err(), *want, "for {src:?}");
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
