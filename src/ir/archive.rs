//! A library linked the way a static archive is (KLEE's `linkModules` with
//! libraries): after the program and the libraries it always gets, the
//! members that define a symbol still undefined are linked, again and again,
//! until nothing more resolves.
//!
//! [`Archive`] is the index of the members' symbols, made once
//! (`Archive::index`) and kept as text (`Archive::to_text`), so that a run
//! parses only the members it links. A member is never linked when it would
//! define a symbol the program already has or the caller says is provided
//! (the engine's own functions: a body would hide them), nor when it holds
//! inline assembly, which the engine cannot run: the symbol stays undefined,
//! and a call to it stays an unmodelled call.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use inkwell::context::Context;
use inkwell::llvm_sys::LLVMValueKind;
use inkwell::llvm_sys::prelude::LLVMModuleRef;

use super::Module;
use super::llvm;
use super::load::{self, LoadError};

/// One member: its bitcode and its symbols.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Member {
    path: PathBuf,
    defines: Vec<String>,
    needs: Vec<String>,
    /// It holds inline or module-level assembly.
    asm: bool,
}

/// The symbol index of an archive's members.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Archive {
    members: Vec<Member>,
    /// The first member that defines each symbol.
    by_symbol: HashMap<String, usize>,
}

/// A symbol the archive served, the member's file stem, and every symbol
/// the member defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pulled {
    pub symbol: String,
    pub member: String,
    pub defines: Vec<String>,
}

impl Archive {
    /// Reads every member's symbols.
    pub fn index(paths: &[PathBuf]) -> Result<Archive, LoadError> {
        let mut members = Vec::with_capacity(paths.len());
        for p in paths {
            let ctx = Context::create();
            let m = load::parse(&ctx, p)?;
            let (defines, needs) = symbols(m.as_mut_ptr());
            members.push(Member {
                path: p.clone(),
                defines: sorted(defines),
                needs: sorted(needs),
                asm: has_asm(m.as_mut_ptr()),
            });
        }
        Ok(Archive::of(members))
    }

    fn of(members: Vec<Member>) -> Archive {
        let mut by_symbol = HashMap::new();
        for (k, m) in members.iter().enumerate() {
            for d in &m.defines {
                by_symbol.entry(d.clone()).or_insert(k);
            }
        }
        Archive { members, by_symbol }
    }

    /// The index as text, a line per member: its file name, `asm` or `-`,
    /// the symbols it defines, the symbols it needs.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for m in &self.members {
            let name = m.path.file_name().unwrap_or_default().to_string_lossy();
            let asm = if m.asm { "asm" } else { "-" };
            out.push_str(&format!("{name}\t{asm}\t{}\t{}\n", m.defines.join(" "), m.needs.join(" ")));
        }
        out
    }

    /// The index `to_text` wrote, its members in `dir`; `None` if the text
    /// is not such an index.
    pub fn from_text(dir: &Path, text: &str) -> Option<Archive> {
        let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let mut members = Vec::new();
        for line in text.lines() {
            let mut f = line.split('\t');
            let (name, asm, defines, needs) = (f.next()?, f.next()?, f.next()?, f.next()?);
            if f.next().is_some() || name.is_empty() || !["asm", "-"].contains(&asm) {
                return None;
            }
            members.push(Member {
                path: dir.join(name),
                defines: words(defines),
                needs: words(needs),
                asm: asm == "asm",
            });
        }
        Some(Archive::of(members))
    }
}

impl Module {
    /// As `load_linked`, then the members of `archive` that define what is
    /// still undefined and not `provided`, until nothing more resolves;
    /// with the symbols the archive served, in the order it served them.
    pub fn load_with_archive(
        program: &Path,
        libraries: &[&Path],
        archive: &Archive,
        provided: &dyn Fn(&str) -> bool,
    ) -> Result<(Module, Vec<Pulled>), LoadError> {
        let ctx = Context::create();
        let mut all = vec![program];
        all.extend_from_slice(libraries);
        let module = load::linked(&ctx, &all)?;
        let (defined, needed) = symbols(module.as_mut_ptr());
        let mut defined: HashSet<String> = defined.into_iter().collect();
        let mut work: VecDeque<String> = sorted(needed).into();
        let mut linked = vec![false; archive.members.len()];
        let mut pulled = Vec::new();
        while let Some(sym) = work.pop_front() {
            if defined.contains(&sym) || provided(&sym) {
                continue;
            }
            let Some(&k) = archive.by_symbol.get(&sym) else { continue };
            let m = &archive.members[k];
            if linked[k] || m.asm || m.defines.iter().any(|d| defined.contains(d) || provided(d)) {
                continue;
            }
            module
                .link_in_module(load::parse(&ctx, &m.path)?)
                .map_err(|e| LoadError::Link { path: m.path.clone(), msg: e.to_string() })?;
            linked[k] = true;
            defined.extend(m.defines.iter().cloned());
            work.extend(m.needs.iter().cloned());
            let member = m.path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            pulled.push(Pulled { symbol: sym, member, defines: m.defines.clone() });
        }
        Ok((load::translate(&module), pulled))
    }
}

/// The symbols a module defines for others, and those it uses without
/// defining (LLVM's intrinsics aside).
fn symbols(m: LLVMModuleRef) -> (Vec<String>, Vec<String>) {
    let (mut defines, mut needs) = (Vec::new(), Vec::new());
    for g in llvm::functions(m).into_iter().chain(llvm::globals(m)) {
        let name = llvm::name(g);
        if llvm::is_declaration(g) {
            if !name.starts_with("llvm.") {
                needs.push(name);
            }
        } else if !llvm::is_local(g) {
            defines.push(name);
        }
    }
    defines.extend(llvm::aliases(m).into_iter().filter(|&a| !llvm::is_local(a)).map(llvm::name));
    (defines, needs)
}

fn has_asm(m: LLVMModuleRef) -> bool {
    llvm::has_module_asm(m)
        || llvm::functions(m).into_iter().flat_map(llvm::blocks).flat_map(llvm::instructions).any(|i| {
            llvm::opcode(i) == inkwell::llvm_sys::LLVMOpcode::LLVMCall
                && llvm::value_kind(llvm::called_value(i)) == LLVMValueKind::LLVMInlineAsmValueKind
        })
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_reads_back_as_it_was_written() {
        let members = vec![
            Member {
                path: "/m/a.bc".into(),
                defines: vec!["f".into(), "g".into()],
                needs: vec![],
                asm: false,
            },
            Member { path: "/m/b.bc".into(), defines: vec!["h".into()], needs: vec!["f".into()], asm: true },
        ];
        let a = Archive::of(members);
        assert_eq!(Archive::from_text(Path::new("/m"), &a.to_text()), Some(a));
        assert_eq!(Archive::from_text(Path::new("/m"), "a.bc\tmaybe\tf\t\n"), None);
    }
}
