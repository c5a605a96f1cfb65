//! What C declarations declare: names (ordinary identifiers and tags), and
//! whether a declared object is a scalar, which decides where an expression-level
//! meta branch is safe (`(__typeof__(x))(...)` casts are valid for scalars only).

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::parse::{Rev, named_children};

/// A file-scope name. C keeps struct/union/enum tags apart from ordinary
/// identifiers (variables, functions, typedef names, enumerators, macros).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Name {
    pub tag: bool,
    pub text: String,
}

impl Name {
    pub fn ordinary(text: &str) -> Name {
        Name { tag: false, text: text.to_string() }
    }
    pub fn tag(text: &str) -> Name {
        Name { tag: true, text: text.to_string() }
    }
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.tag { write!(f, "tag `{}`", self.text) } else { write!(f, "`{}`", self.text) }
    }
}

/// The identifier a declarator declares (through pointers, arrays, functions,
/// parentheses and initializers).
pub(crate) fn declarator_name(node: Node) -> Option<Node> {
    match node.kind() {
        "identifier" | "type_identifier" | "field_identifier" => Some(node),
        _ => match node.child_by_field_name("declarator") {
            Some(inner) => declarator_name(inner),
            None if node.kind().starts_with("parenthesized") => {
                named_children(node).into_iter().find(|c| c.kind() != "comment").and_then(declarator_name)
            }
            None => None,
        },
    }
}

/// Whether the declarator declares a function (not a pointer to one).
pub(crate) fn declares_function(node: Node) -> bool {
    match node.kind() {
        "function_declarator" => {
            node.child_by_field_name("declarator").is_none_or(|d| declarator_name(d) == Some(d))
        }
        "init_declarator" | "attributed_declarator" | "pointer_declarator" => {
            node.child_by_field_name("declarator").is_some_and(declares_function)
        }
        _ => false,
    }
}

/// The `declarator` children of a declaration, type definition or parameter.
pub(crate) fn declarators(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.children_by_field_name("declarator", &mut cursor).collect()
}

/// Names a declaration-like node defines: its declarators, plus the tags and
/// enumerators of a struct/union/enum it defines (with a body).
pub(crate) fn defined_names<'t>(rev: &Rev, node: Node<'t>) -> Vec<(Name, Node<'t>)> {
    let mut out = Vec::new();
    match node.kind() {
        "struct_specifier" | "union_specifier" | "enum_specifier" => specifier_names(rev, node, &mut out),
        "preproc_def" | "preproc_function_def" => {
            if let Some(n) = node.child_by_field_name("name") {
                out.push((Name::ordinary(rev.text_of(n)), n));
            }
        }
        _ => {
            if let Some(t) = node.child_by_field_name("type") {
                specifier_names(rev, t, &mut out);
            }
            for d in declarators(node) {
                if let Some(n) = declarator_name(d) {
                    out.push((Name::ordinary(rev.text_of(n)), n));
                }
            }
        }
    }
    out
}

fn specifier_names<'t>(rev: &Rev, spec: Node<'t>, out: &mut Vec<(Name, Node<'t>)>) {
    if !matches!(spec.kind(), "struct_specifier" | "union_specifier" | "enum_specifier") {
        return;
    }
    let Some(body) = spec.child_by_field_name("body") else { return };
    if let Some(n) = spec.child_by_field_name("name") {
        out.push((Name::tag(rev.text_of(n)), n));
    }
    if spec.kind() == "enum_specifier" {
        for e in named_children(body).into_iter().filter(|e| e.kind() == "enumerator") {
            if let Some(n) = e.child_by_field_name("name") {
                out.push((Name::ordinary(rev.text_of(n)), n));
            }
        }
    }
}

/// The storage class of a declaration (`static`, `extern`, ...), if any.
pub(crate) fn storage_class<'a>(text: &'a str, node: Node) -> Option<&'a str> {
    named_children(node)
        .into_iter()
        .find(|c| c.kind() == "storage_class_specifier")
        .map(|c| &text[c.byte_range()])
}

/// Typedef names of the C library that name scalar types.
fn library_scalar(name: &str) -> bool {
    matches!(
        name,
        "size_t"
            | "ssize_t"
            | "ptrdiff_t"
            | "off_t"
            | "time_t"
            | "clock_t"
            | "wchar_t"
            | "wint_t"
            | "bool"
            | "char16_t"
            | "char32_t"
    ) || ((name.starts_with("int") || name.starts_with("uint")) && name.ends_with("_t"))
}

/// File-scope typedefs of one revision: name → whether it names a scalar type.
pub(crate) fn scalar_typedefs(rev: &Rev) -> BTreeMap<String, bool> {
    let mut map = BTreeMap::new();
    for item in named_children(rev.tree.root_node()).into_iter().filter(|n| n.kind() == "type_definition") {
        let base = item.child_by_field_name("type").is_some_and(|t| type_is_scalar(rev, t, &map));
        for d in declarators(item) {
            let scalar = match d.kind() {
                "type_identifier" => base,
                "pointer_type_declarator" => true,
                _ => false,
            };
            if let Some(n) = declarator_name(d) {
                map.insert(rev.text_of(n).to_string(), scalar);
            }
        }
    }
    map
}

fn type_is_scalar(rev: &Rev, ty: Node, typedefs: &BTreeMap<String, bool>) -> bool {
    match ty.kind() {
        "primitive_type" => rev.text_of(ty) != "void",
        "sized_type_specifier" | "enum_specifier" => true,
        "type_identifier" => {
            let name = rev.text_of(ty);
            typedefs.get(name).copied().unwrap_or_else(|| library_scalar(name))
        }
        _ => false,
    }
}

/// Whether the object `declarator` declares (with type specifier `ty`) is a
/// scalar: an arithmetic type, an enum or a pointer. Unknown means no.
pub(crate) fn is_scalar(rev: &Rev, ty: Node, declarator: Node, typedefs: &BTreeMap<String, bool>) -> bool {
    match declarator.kind() {
        "init_declarator" => {
            declarator.child_by_field_name("declarator").is_some_and(|d| is_scalar(rev, ty, d, typedefs))
        }
        "pointer_declarator" => true,
        "identifier" => type_is_scalar(rev, ty, typedefs),
        _ => false,
    }
}

/// The declaration of the variable `name` visible at `at` (a statement inside
/// a function): `(type specifier, declarator)`.
pub(crate) fn lookup<'t>(rev: &Rev, at: Node<'t>, name: &str) -> Option<(Node<'t>, Node<'t>)> {
    let find = |decl: Node<'t>| -> Option<(Node<'t>, Node<'t>)> {
        if !matches!(decl.kind(), "declaration" | "parameter_declaration") {
            return None;
        }
        let ty = decl.child_by_field_name("type")?;
        declarators(decl)
            .into_iter()
            .find(|d| declarator_name(*d).is_some_and(|n| rev.text_of(n) == name))
            .map(|d| (ty, d))
    };
    let mut cur = at;
    while let Some(parent) = cur.parent() {
        match parent.kind() {
            "compound_statement" | "case_statement" | "translation_unit" => {
                let before =
                    named_children(parent).into_iter().take_while(|c| c.id() != cur.id()).collect::<Vec<_>>();
                if let Some(hit) = before.into_iter().rev().find_map(find) {
                    return Some(hit);
                }
            }
            "for_statement" => {
                if let Some(hit) = parent.child_by_field_name("initializer").and_then(find) {
                    return Some(hit);
                }
            }
            "function_definition" => {
                let mut d = parent.child_by_field_name("declarator");
                while let Some(n) = d {
                    if n.kind() == "function_declarator" {
                        break;
                    }
                    d = n.child_by_field_name("declarator");
                }
                let params = d.and_then(|f| f.child_by_field_name("parameters"));
                if let Some(hit) = params.into_iter().flat_map(named_children).find_map(find) {
                    return Some(hit);
                }
            }
            _ => {}
        }
        cur = parent;
    }
    None
}

/// How many parameters a function definition declares (`f(void)` and `f()` have none).
pub(crate) fn parameter_count(rev: &Rev, def: Node) -> usize {
    let mut d = def.child_by_field_name("declarator");
    while let Some(n) = d.filter(|n| n.kind() != "function_declarator") {
        d = n.child_by_field_name("declarator");
    }
    let params: Vec<Node> = d
        .and_then(|f| f.child_by_field_name("parameters"))
        .map(named_children)
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.kind() != "comment")
        .collect();
    match params.as_slice() {
        [only] if rev.text_of(*only) == "void" => 0,
        ps => ps.len(),
    }
}
