//! C++ names for Rust identifiers: Rust allows names that C++ reserves (`int`, `new`,
//! `threadIdx`), and Rust's `let` shadowing in one scope needs fresh names in C++.

use std::collections::{HashMap, HashSet};

/// C++ keywords and names the generated code relies on, which a Rust identifier must not
/// take over.
const RESERVED: &[&str] = &[
    "alignas",
    "alignof",
    "and",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "break",
    "case",
    "catch",
    "char",
    "char16_t",
    "char32_t",
    "class",
    "compl",
    "const",
    "constexpr",
    "const_cast",
    "continue",
    "decltype",
    "default",
    "delete",
    "do",
    "double",
    "dynamic_cast",
    "else",
    "enum",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "for",
    "friend",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not",
    "not_eq",
    "nullptr",
    "operator",
    "or",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "reinterpret_cast",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "static_cast",
    "struct",
    "switch",
    "template",
    "this",
    "thread_local",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "union",
    "unsigned",
    "using",
    "virtual",
    "void",
    "volatile",
    "wchar_t",
    "while",
    "xor",
    "xor_eq",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "main",
    "NULL",
    "ongpu_real",
];

/// The C++ spelling of a Rust identifier: itself, unless C++ reserves it or it could meet a
/// generated name (those start with `ongpu`); then `ongpu_u_` + the name.
pub fn cuda_ident(rust: &str) -> String {
    let rust = rust.strip_prefix("r#").unwrap_or(rust);
    if RESERVED.contains(&rust)
        || rust.starts_with("ongpu")
        || rust.starts_with("__")
        || rust.contains("__")
    {
        format!("ongpu_u_{rust}")
    } else {
        rust.to_string()
    }
}

/// Fresh C++ names for the bindings of one function: the first binding of a name keeps it,
/// a later one (Rust shadowing) gets `name_N`, avoiding every name the body uses.
#[derive(Debug, Default)]
pub struct NamePool {
    taken: HashSet<String>,
    counters: HashMap<String, u32>,
}

impl NamePool {
    /// A pool in which `used` (every identifier of the body, in C++ spelling) is taken.
    pub fn new(used: impl IntoIterator<Item = String>) -> Self {
        NamePool {
            taken: used.into_iter().collect(),
            counters: HashMap::new(),
        }
    }

    /// A name for a new binding whose C++ spelling would be `base`: `base` itself unless a
    /// binding of it was `declared_before` in the function (then `base_N`).
    pub fn fresh(&mut self, base: &str, declared_before: bool) -> String {
        let base = base.to_string();
        if !declared_before {
            return base;
        }
        loop {
            let n = self.counters.entry(base.clone()).or_insert(0);
            *n += 1;
            let candidate = format!("{base}_{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_are_prefixed() {
        assert_eq!(cuda_ident("x"), "x");
        assert_eq!(cuda_ident("int"), "ongpu_u_int");
        assert_eq!(cuda_ident("r#new"), "ongpu_u_new");
        assert_eq!(cuda_ident("ongpu_site"), "ongpu_u_ongpu_site");
        assert_eq!(cuda_ident("threadIdx"), "ongpu_u_threadIdx");
    }

    #[test]
    fn shadowing_gets_fresh_names_avoiding_used_ones() {
        let mut pool = NamePool::new(["a".to_string(), "a_1".to_string()]);
        assert_eq!(pool.fresh("a", false), "a");
        assert_eq!(pool.fresh("a", true), "a_2");
        assert_eq!(pool.fresh("a", true), "a_3");
    }
}
