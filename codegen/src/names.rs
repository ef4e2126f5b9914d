//! Rust names for schema names: accessors, and what a generated module cannot use.

/// Rust's strict, reserved and edition-reserved keywords: a field with one of these names gets
/// `_` appended for its accessor, and a type or enum value cannot have one.
pub const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
    "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box",
    "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Type names the generated module defines itself (`fb_schema!`).
pub const RESERVED_TYPE_NAMES: &[&str] = &["SCHEMA", "Root"];

/// The accessor name for a schema field name: in snake case (`sentencePiece_model` is
/// `sentence_piece_model`, as flatc's Rust code names it), with `_` after a keyword.
pub fn accessor(name: &str) -> String {
    let mut snake = snake_case(name);
    if RUST_KEYWORDS.contains(&snake.as_str()) {
        snake.push('_');
    }
    snake
}

/// The base of the constants a table field's view gets (`<BASE>_SLOT`, `<BASE>_NAME`): its
/// name in upper snake case (`builtin_options_2` is `BUILTIN_OPTIONS_2`, `sentencePiece_model`
/// `SENTENCE_PIECE_MODEL`, `type` `TYPE`). Unlike the accessors' lower case, it cannot be a
/// keyword; `_SLOT` and `_NAME` keep it apart from the view's other constants (`NAME`, `ID`).
pub fn constant(name: &str) -> String {
    snake_case(name).to_ascii_uppercase()
}

/// `name` in snake case: `_` before an upper-case letter that follows a lower-case one or a
/// digit, every letter lower-cased.
fn snake_case(name: &str) -> String {
    let mut snake = String::with_capacity(name.len() + 4);
    let mut previous: Option<char> = None;
    for c in name.chars() {
        if c.is_ascii_uppercase() && previous.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit()) {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
        previous = Some(c);
    }
    snake
}

/// The last component of a possibly namespace-qualified name.
pub fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors_are_snake_case_and_not_keywords() {
        assert_eq!(accessor("sentencePiece_model"), "sentence_piece_model");
        assert_eq!(accessor("Self"), "self_");
        assert_eq!(accessor("dim2D"), "dim2_d");
        assert_eq!(accessor("type"), "type_");
        assert_eq!(accessor("builtin_options_2"), "builtin_options_2");
    }

    #[test]
    fn constants_are_upper_snake_case() {
        assert_eq!(constant("sentencePiece_model"), "SENTENCE_PIECE_MODEL");
        assert_eq!(constant("type"), "TYPE");
        assert_eq!(constant("builtin_options_2"), "BUILTIN_OPTIONS_2");
        assert_eq!(constant("dim2D"), "DIM2_D");
    }

    #[test]
    fn short_names_drop_the_namespace() {
        assert_eq!(short("tflite.Model"), "Model");
        assert_eq!(short("Model"), "Model");
    }
}
