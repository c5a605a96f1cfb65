//! Function outputs (seed 000's "return values" and "pointers to mutable data
//! as function arguments"), as `psychic_output` annotations written into the
//! meta program itself, so that the engine and the native replay observe them
//! the same way.
//!
//! Each changed function `f` (not `main`, whose return is the exit status)
//! keeps its body under the name `f__psychic_body`, and a wrapper `f` at the
//! end of the file calls it and records `ret!f` (the return value) and
//! `arg!f!p` (the object a non-const pointer parameter `p` points to, after
//! the call). Records are named by the function's original name, so revisions
//! whose copies were renamed still compare. Every line keeps its number: the
//! prototype of `f` goes on the line of the renamed definition, so the source
//! map stays true.

use tree_sitter::Node;

use super::decl::declarator_name;
use super::meta::MetaProgram;
use super::parse::{named_children, parse_c};

/// The suffix of a wrapped function's body.
pub const BODY_SUFFIX: &str = "__psychic_body";

/// The meta program with function outputs recorded, and a note per changed
/// function that could not be wrapped (and why).
pub fn function_outputs(meta: &MetaProgram) -> (String, Vec<String>) {
    let text = &meta.text;
    let tree = parse_c(text);
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut wrappers = String::new();
    let mut notes = Vec::new();
    for def in named_children(tree.root_node()).into_iter().filter(|n| n.kind() == "function_definition") {
        let Some(decl) = def.child_by_field_name("declarator") else { continue };
        let Some(name_node) = declarator_name(decl) else { continue };
        let meta_name = &text[name_node.byte_range()];
        let Some(orig) = meta
            .changed_functions
            .iter()
            .find(|f| f.instances.iter().any(|i| i.meta_name == meta_name))
            .map(|f| f.name.as_str())
        else {
            continue;
        };
        if orig == "main" {
            continue;
        }
        match wrapper(text, def, name_node, orig) {
            Ok(w) => {
                // Rename the body, and declare the wrapper on the same line.
                let prototype = format!("{};", &text[def.start_byte()..decl.end_byte()]);
                let at = def.start_byte();
                edits.push((at, at, format!("{prototype} ")));
                edits.push((
                    name_node.start_byte(),
                    name_node.end_byte(),
                    format!("{meta_name}{BODY_SUFFIX}"),
                ));
                wrappers.push_str(&w);
            }
            Err(why) => notes.push(format!("the outputs of `{orig}` are not recorded: {why}")),
        }
    }
    if wrappers.is_empty() {
        return (text.clone(), notes);
    }
    let mut out = text.clone();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for (start, end, with) in edits {
        out.replace_range(start..end, &with);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str("\n/* psychic: function outputs (--outputs functions) */\n");
    out.push_str("void psychic_output_bytes(const char *name, const void *addr, size_t nbytes);\n");
    out.push_str(&wrappers);
    (out, notes)
}

/// The function declarator inside `decl` (through pointer declarators).
fn function_declarator(decl: Node) -> Option<Node> {
    match decl.kind() {
        "function_declarator" => Some(decl),
        _ => decl.child_by_field_name("declarator").and_then(function_declarator),
    }
}

fn wrapper(text: &str, def: Node, name_node: Node, orig: &str) -> Result<String, String> {
    let decl = def.child_by_field_name("declarator").ok_or("no declarator")?;
    let fdecl = function_declarator(decl).ok_or("not a plain function declarator")?;
    let params = fdecl.child_by_field_name("parameters").ok_or("no parameter list")?;
    let mut args = Vec::new();
    let mut records = Vec::new();
    for p in named_children(params) {
        match p.kind() {
            "parameter_declaration" => {}
            "variadic_parameter" => return Err("it takes a variable number of arguments".into()),
            "comment" => continue,
            _ => return Err("its parameters are not in prototype form".into()),
        }
        let ty = p.child_by_field_name("type").map(|t| &text[t.byte_range()]).unwrap_or("");
        let Some(d) = p.child_by_field_name("declarator") else {
            if ty == "void" {
                continue; // f(void)
            }
            return Err("a parameter has no name".into());
        };
        let pname = declarator_name(d).map(|n| &text[n.byte_range()]).ok_or("a parameter has no name")?;
        args.push(pname.to_string());
        if let Some(pointee_const) = single_pointer(text, p, d)
            && !pointee_const
            && ty != "void"
        {
            records.push(format!(
                "    psychic_output_bytes(\"arg!{orig}!{pname}\", {pname}, {pname} ? sizeof *{pname} : 0);\n"
            ));
        }
    }
    let name = &text[name_node.byte_range()];
    let header = &text[def.start_byte()..decl.end_byte()];
    let call = format!("{name}{BODY_SUFFIX}({})", args.join(", "));
    let returns_void = def.child_by_field_name("type").is_some_and(|t| &text[t.byte_range()] == "void")
        && decl.kind() == "function_declarator";
    // Unused static functions stay unused without a warning, wrapped or not.
    let mut w = format!("__attribute__((unused)) {header} {{\n");
    if returns_void {
        w.push_str(&format!("    {call};\n"));
        w.push_str(&records.concat());
    } else {
        w.push_str(&format!("    __typeof__({call}) psychic_ret = {call};\n"));
        w.push_str(&format!("    psychic_output_bytes(\"ret!{orig}\", &psychic_ret, sizeof psychic_ret);\n"));
        w.push_str(&records.concat());
        w.push_str("    return psychic_ret;\n");
    }
    w.push_str("}\n");
    Ok(w)
}

/// For a parameter that is a single-level data pointer (`T *p`, `T p[]`):
/// whether the pointee is const. `None` for anything else.
fn single_pointer(text: &str, param: Node, decl: Node) -> Option<bool> {
    let inner = decl.child_by_field_name("declarator")?;
    let is_pointer = match decl.kind() {
        "pointer_declarator" | "array_declarator" => inner.kind() == "identifier",
        _ => false,
    };
    if !is_pointer {
        return None;
    }
    let pointee_const = named_children(param)
        .into_iter()
        .any(|c| c.kind() == "type_qualifier" && &text[c.byte_range()] == "const");
    Some(pointee_const)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::unify::{RevisionSource, unify};

    fn meta_of(a: &str, b: &str) -> MetaProgram {
        let rev = |index: usize, text: &str| RevisionSource {
            index,
            name: format!("r{index}.c"),
            path: format!("r{index}.c").into(),
            text: text.to_string(),
        };
        unify(&[rev(0, a), rev(1, b)]).unwrap()
    }

    #[test]
    fn wraps_every_plain_function_form_and_says_what_it_skips() {
        let a = r#"#include <stdarg.h>
#include <string.h>
struct s { int a; };
static inline int *pick(int **pp, int i) { return pp[i] + 0; }
void fill(char buf[], struct s *out, const struct s *in, int n) { memset(buf, 0, n); *out = *in; }
int sum(int n, ...) { va_list ap; va_start(ap, n); int t = va_arg(ap, int); va_end(ap); return t + n; }
struct s make(void) { struct s r = {1}; return r; }
int main(void) { return 0; }
"#;
        let b = a
            .replace("+ 0", "+ 1")
            .replace("*out = *in;", "*out = *in; out->a++;")
            .replace("t + n", "t - n")
            .replace("{1}", "{2}");
        let meta = meta_of(a, &b);
        let (text, notes) = function_outputs(&meta);
        for f in ["pick", "fill", "make"] {
            assert!(text.contains(&format!("{f}{BODY_SUFFIX}(")), "{f} is wrapped:\n{text}");
        }
        assert!(text.contains("\"ret!pick\"") && text.contains("\"ret!make\""));
        assert!(text.contains("\"arg!fill!buf\"") && text.contains("\"arg!fill!out\""));
        assert!(
            !text.contains("\"arg!fill!in\"") && !text.contains("\"arg!pick!pp\""),
            "const and double pointers are not recorded"
        );
        assert!(!text.contains("\"ret!fill\""), "void returns nothing");
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("`sum`") && notes[0].contains("variable number of arguments"));
        // The wrappers compile cleanly, and every line of the meta program kept its number.
        let tc = crate::compile::Toolchain::discover().unwrap().with_flags(["-Wall", "-Werror"]);
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("meta.c");
        std::fs::write(&src, &text).unwrap();
        tc.syntax_check(&src).unwrap_or_else(|e| panic!("{e}\n{text}"));
        for (old, new) in meta.text.lines().zip(text.lines()) {
            assert!(old == new || new.contains(BODY_SUFFIX), "a line moved: {old:?} became {new:?}");
        }
    }
}
