//! `#include` lines that differ between revisions.
//!
//! The meta program is one translation unit, so a header one revision
//! includes is included for all. That keeps every revision's meaning when the
//! header's second inclusion is empty and it reads no macro of the file: a
//! system header (`<...>`, or a quoted name no file beside the revision
//! answers, such as `"string.h"`, which clang then finds among the system
//! headers) or a local header with an include guard (`#ifndef X` and
//! `#define X` around all of it, or `#pragma once`). Those are matched by the
//! header they name however they are spelled (`# include`, `#include<x.h>`,
//! `"string.h"` for `<string.h>`), and revisions may add, drop, repeat or
//! reorder them. A revision that declares a name such a header declares
//! otherwise no longer compiles; the session names it. Any other include (a
//! local header without a guard, a macro naming the header) must stay where
//! it is, the same in every revision.
//!
//! Quoted includes are looked for as clang looks for them: a revision alone,
//! beside its own file and then in the original's directory (`-I`); the meta
//! program in [`include_dirs`] (`-iquote`, the original's directory first),
//! which the session passes. A quoted include that finds another file in the
//! meta program than in its revision is refused.

use std::path::{Path, PathBuf};

use tree_sitter::Node;

use super::RevisionSource;
use super::error::UnifyError;
use super::parse::{Rev, children, named_children, parse_c};
use super::toplevel::{ItemKind, TopItem};

/// The header an `#include` names, as far as merging cares.
#[derive(Debug)]
pub(crate) enum Header {
    /// Found among the system headers.
    System(String),
    /// A file beside a revision or the original, guarded or not.
    Local { name: String, path: PathBuf, guarded: bool },
    /// Named by a macro (`#include CONFIG`): what it names depends on the file.
    Computed(String),
}

impl Header {
    /// Equal for the includes of one header, however they are spelled.
    pub fn key(&self) -> String {
        match self {
            Header::System(name) => format!("#include <{name}>"),
            Header::Local { name, .. } => format!("#include \"{name}\""),
            Header::Computed(text) => format!("#include {text}"),
        }
    }

    /// Why the include must stay where it is, the same in every revision;
    /// `None` when the meta program may include the header for every
    /// revision, once, anywhere before the code.
    pub fn fixed(&self) -> Option<String> {
        match self {
            Header::System(_) | Header::Local { guarded: true, .. } => None,
            Header::Local { path, .. } => Some(format!("{} has no include guard", path.display())),
            Header::Computed(_) => Some("a macro names the header".to_string()),
        }
    }
}

/// Where quoted includes are found: by each revision alone, and by the meta
/// program.
pub(crate) struct Headers {
    own: Vec<Vec<PathBuf>>,
    meta: Vec<PathBuf>,
}

/// The directories the meta program's quoted includes are looked for in, in
/// order (as `-iquote`): the original's, then those of the other revisions
/// given as files, so that a header only a patched file beside it includes is
/// found.
pub fn include_dirs(sources: &[RevisionSource]) -> Vec<PathBuf> {
    distinct(own_dirs(sources).into_iter().flatten())
}

/// Each revision's directory, where its file is its text: the original's
/// always, a revision made from a diff's never (it is checked in a scratch
/// directory).
fn own_dirs(sources: &[RevisionSource]) -> Vec<Option<PathBuf>> {
    sources.iter().map(|s| (s.index == 0 || s.on_disk()).then(|| dir_of(&s.path))).collect()
}

fn distinct(dirs: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

fn dir_of(path: &Path) -> PathBuf {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")).to_path_buf()
}

impl Headers {
    pub fn new(sources: &[RevisionSource]) -> Headers {
        let dirs = own_dirs(sources);
        let meta = distinct(dirs.iter().flatten().cloned());
        // A revision alone looks beside itself, then in the original's directory.
        let orig = meta.first().cloned().unwrap_or_else(|| PathBuf::from("."));
        let own = dirs.into_iter().map(|d| distinct(d.into_iter().chain([orig.clone()]))).collect();
        Headers { own, meta }
    }

    /// The header `rev`'s `#include "name"` finds; a message when the meta
    /// program would find another file.
    fn quoted(&self, rev: usize, name: &str) -> Result<Header, String> {
        let own = first_file(self.own.get(rev).map_or(&[][..], Vec::as_slice), name)?;
        let meta = first_file(&self.meta, name)?;
        match (own, meta) {
            (None, None) => Ok(Header::System(name.to_string())),
            (Some((path, text)), Some((_, meta_text))) if text == meta_text => {
                let guarded = guarded(&super::decode(&text));
                Ok(Header::Local { name: name.to_string(), path, guarded })
            }
            (own, meta) => {
                let show = |f: &Option<(PathBuf, Vec<u8>)>| {
                    f.as_ref().map_or_else(|| "a system header".to_string(), |(p, _)| p.display().to_string())
                };
                Err(format!(
                    "revision {rev} finds `{name}` as {}, but the meta program, one file for all revisions, would \
                     find {}; psychic cannot merge includes of different files of one name",
                    show(&own),
                    show(&meta)
                ))
            }
        }
    }
}

/// The first `dir/name` of `dirs` that exists, with its bytes.
fn first_file(dirs: &[PathBuf], name: &str) -> Result<Option<(PathBuf, Vec<u8>)>, String> {
    for d in dirs {
        let p = d.join(name);
        if p.is_file() {
            return std::fs::read(&p)
                .map(|t| Some((p.clone(), t)))
                .map_err(|e| format!("{}: {e}", p.display()));
        }
    }
    Ok(None)
}

/// The header each include item of each revision names (`None` for other
/// items), or the refusal of one that finds different files.
pub(crate) fn classify(
    revs: &[Rev],
    items: &[Vec<TopItem>],
    headers: &Headers,
) -> Result<Vec<Vec<Option<Header>>>, UnifyError> {
    items
        .iter()
        .enumerate()
        .map(|(r, its)| {
            its.iter()
                .map(|it| {
                    (it.kind == ItemKind::Include)
                        .then(|| header(&revs[r], it.elem.node, headers))
                        .transpose()
                })
                .collect()
        })
        .collect()
}

fn header(rev: &Rev, node: Node, headers: &Headers) -> Result<Header, UnifyError> {
    let Some(path) = node.child_by_field_name("path") else {
        return Ok(Header::Computed(rev.text_of(node).trim().to_string()));
    };
    let text = rev.text_of(path);
    let inner = |open: char, close: char| {
        text.strip_prefix(open).and_then(|t| t.strip_suffix(close)).map(|t| t.trim().to_string())
    };
    match (path.kind(), inner('<', '>'), inner('"', '"')) {
        ("system_lib_string", Some(name), _) => Ok(Header::System(name)),
        ("string_literal", _, Some(name)) => headers
            .quoted(rev.index, &name)
            .map_err(|message| UnifyError::Preprocessor { at: rev.loc(node.start_byte()), message }),
        _ => Ok(Header::Computed(text.to_string())),
    }
}

/// Whether every revision includes only headers that merge, before anything
/// else: then they may all go first.
pub(crate) fn lead(included: &[Vec<Option<Header>>]) -> bool {
    included.iter().all(|hs| {
        let lead = hs.iter().take_while(|h| h.as_ref().is_some_and(|h| h.fixed().is_none())).count();
        hs[lead..].iter().all(Option::is_none)
    })
}

/// Whether a second inclusion of the header `text` is empty: `#pragma once`,
/// or one `#ifndef X` (`#if !defined X`) holding everything, which defines `X`
/// first.
fn guarded(text: &str) -> bool {
    let tree = parse_c(text);
    let top: Vec<Node> =
        named_children(tree.root_node()).into_iter().filter(|n| n.kind() != "comment").collect();
    let src = |n: Node| &text[n.byte_range()];
    let once = |n: &Node| {
        n.kind() == "preproc_call"
            && n.child_by_field_name("directive").is_some_and(|d| squeeze(src(d)) == "#pragma")
            && n.child_by_field_name("argument").is_some_and(|a| src(a).trim() == "once")
    };
    if top.iter().any(once) {
        return true;
    }
    let [block] = top[..] else { return false };
    if block.child_by_field_name("alternative").is_some() {
        return false;
    }
    let guard = match block.kind() {
        "preproc_ifdef" if children(block).first().is_some_and(|t| t.kind() == "#ifndef") => {
            block.child_by_field_name("name").map(|n| src(n).to_string())
        }
        "preproc_if" => block.child_by_field_name("condition").and_then(|c| {
            let cond = squeeze(src(c));
            let name = cond.strip_prefix("!defined")?;
            let name = name.strip_prefix('(').and_then(|n| n.strip_suffix(')')).unwrap_or(name);
            Some(name.to_string())
        }),
        _ => None,
    };
    let Some(guard) = guard else { return false };
    let (name, condition) = (block.child_by_field_name("name"), block.child_by_field_name("condition"));
    let first = named_children(block)
        .into_iter()
        .find(|n| n.kind() != "comment" && Some(*n) != name && Some(*n) != condition);
    first.is_some_and(|d| {
        d.kind() == "preproc_def" && d.child_by_field_name("name").is_some_and(|n| src(n) == guard)
    })
}

/// `s` without white space.
fn squeeze(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unified(texts: &[&str]) -> String {
        let sources: Vec<RevisionSource> = texts
            .iter()
            .enumerate()
            .map(|(index, t)| RevisionSource {
                index,
                name: format!("r{index}.c"),
                path: PathBuf::from(format!("/nonexistent/r{index}.c")),
                text: t.to_string(),
            })
            .collect();
        super::super::unify(&sources).unwrap_or_else(|e| panic!("{e}")).text
    }

    fn at(text: &str, what: &str) -> usize {
        text.find(what).unwrap_or_else(|| panic!("no `{what}` in:\n{text}"))
    }

    #[test]
    fn headers_are_matched_however_spelled_and_go_first() {
        let main = "int main(void) { return printf(\"%d\", (int)strlen(\"ab\")); }\n";
        let text = unified(&[
            &format!("#include <stdio.h>\n#include <string.h>\n{main}"),
            &format!("int printf(const char *, ...);\nunsigned long strlen(const char *);\n{main}"),
            &format!("# include<string.h>\n#include \"stdio.h\" // quoted, yet a system header\n{main}"),
        ]);
        assert_eq!(text.matches("stdio.h").count(), 1, "{text}");
        assert_eq!(text.matches("string.h").count(), 1, "{text}");
        assert!(at(&text, "string.h") < at(&text, "int printf"), "{text}");
    }

    #[test]
    fn headers_stay_behind_a_directive_that_precedes_them() {
        let main = "int main(void) { return puts(strchrnul(\"ab\", 'b')); }\n";
        let text = unified(&[
            &format!("#define _GNU_SOURCE\n#include <string.h>\n#include <stdio.h>\n{main}"),
            &format!(
                "#define _GNU_SOURCE\n#include <stdio.h>\n#include <string.h>\n#include <stdlib.h>\n{main}"
            ),
        ]);
        let define = at(&text, "#define _GNU_SOURCE");
        for h in ["<stdio.h>", "<string.h>", "<stdlib.h>"] {
            assert!(define < at(&text, h), "{h} after the feature macro:\n{text}");
        }
    }

    #[test]
    fn include_guards_are_recognised() {
        let guarded_texts = [
            "#ifndef CONFIG_H\n#define CONFIG_H\nint limit(void);\n#endif\n",
            "/* config */\n#ifndef CONFIG_H\n// why\n#define CONFIG_H 1\n#define N 3\n#endif /* CONFIG_H */\n",
            "#if !defined(CONFIG_H)\n#define CONFIG_H\nint limit(void);\n#endif\n",
            "#pragma once\nint limit(void);\n",
        ];
        for t in guarded_texts {
            assert!(guarded(t), "{t}");
        }
        let unguarded = [
            "int limit(void);\n",
            "#ifndef CONFIG_H\n#define OTHER_H\n#endif\n",
            "#ifdef CONFIG_H\n#define CONFIG_H\n#endif\n",
            "#ifndef CONFIG_H\n#define CONFIG_H\n#endif\nint after;\n",
            "#ifndef CONFIG_H\n#define CONFIG_H\n#else\nint twice;\n#endif\n",
            "#ifndef CONFIG_H\nint before;\n#define CONFIG_H\n#endif\n",
            "",
        ];
        for t in unguarded {
            assert!(!guarded(t), "{t}");
        }
    }
}
