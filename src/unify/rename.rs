//! File-scope renaming. Where revisions define one name differently (a changed
//! signature, global initializer, type or macro, or a function whose bodies cannot
//! share one definition), each differing definition gets a name of its own and
//! each revision's references follow its definition. The lowest revision keeps
//! the original name (but `main`, whose variants all get names of their own).
//! Renaming is scope-aware: a local that shadows the name is left alone.
//!
//! The same pass replaces `__LINE__` with the revision's own line number, and
//! `__func__` in renamed functions with the original name, so that neither
//! changes behaviour in the meta program.
//!
//! A differing definition is named `NAME__revK`. Renaming repeats to a fixpoint,
//! since renaming a type changes the signatures that use it, and re-parses
//! incrementally.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use tree_sitter::Node;

use super::decl::{Name, declarator_name, declarators, declares_function, storage_class};
use super::error::UnifyError;
use super::parse::{Rev, mentions, named_children, words};
use super::toplevel::{Directive, ItemKind, TopItem};

/// For one revision: the names it spells differently in the meta program.
pub(crate) type RenameMap = BTreeMap<Name, String>;

/// Adds to `maps` (one per revision) the names whose definitions still collide in
/// `revs` (already renamed by `maps`). `forced` names are functions whose bodies
/// could not be merged: their whole definitions must agree. Returns whether
/// anything was added.
pub(crate) fn extend(
    maps: &mut [RenameMap],
    revs: &[Rev],
    items: &[Vec<TopItem>],
    forced: &BTreeSet<Name>,
    directives: &[Directive],
) -> Result<bool, UnifyError> {
    // Name → revision → signatures of its definitions, in order.
    let mut defs: BTreeMap<&Name, BTreeMap<usize, Vec<u64>>> = BTreeMap::new();
    let mut where_: BTreeMap<(&Name, usize), usize> = BTreeMap::new();
    let mut macros: BTreeSet<&Name> = BTreeSet::new();
    for (r, its) in items.iter().enumerate() {
        for it in its {
            for (name, node) in &it.names {
                let rev = &revs[r];
                let whole = it.kind == ItemKind::Function && forced.contains(name);
                let sig = if whole { it.full(rev) } else { it.sig(rev) };
                defs.entry(name).or_default().entry(r).or_default().push(sig);
                where_.entry((name, r)).or_insert(node.start_byte());
                if it.kind == ItemKind::Define {
                    macros.insert(name);
                }
            }
        }
    }
    let mut grew = false;
    for (name, per_rev) in defs {
        let mut groups: Vec<(&Vec<u64>, Vec<usize>)> = Vec::new();
        for (r, sigs) in &per_rev {
            match groups.iter_mut().find(|(s, _)| *s == sigs) {
                Some((_, rs)) => rs.push(*r),
                None => groups.push((sigs, vec![*r])),
            }
        }
        // A macro only some revisions define would capture the same word in the others.
        let names = BTreeSet::from([name.text.clone()]);
        let capture = macros.contains(name)
            && (0..revs.len()).any(|r| {
                !per_rev.contains_key(&r) && mentions(&revs[r].text, revs[r].tree.root_node(), &names)
            });
        if groups.len() < 2 && !capture {
            continue;
        }
        let first_differing = groups.get(1).map_or(groups[0].1[0], |g| g.1[0]);
        let at = revs[first_differing].loc(where_[&(name, first_differing)]);
        // `main` cannot take another name: every variant does, and the printer
        // adds a `main` that calls the revision's own.
        let rename_all = capture || (!name.tag && name.text == "main");
        for d in directives {
            let own = macros.contains(name) && d.defines.as_deref() == Some(name.text.as_str());
            if !own && d.reads(&name.text) {
                return Err(UnifyError::Preprocessor {
                    at: d.at.clone(),
                    message: format!(
                        "{name} is defined differently by the revisions (first differing at {at}) and this \
                         directive uses it; psychic cannot merge that safely"
                    ),
                });
            }
        }
        for (gi, (_, group)) in groups.iter().enumerate() {
            if gi == 0 && !rename_all {
                continue;
            }
            let fresh = fresh_name(&name.text, group[0], revs);
            for &r in group {
                maps[r].insert(name.clone(), fresh.clone());
            }
            grew = true;
        }
    }
    Ok(grew)
}

/// `NAME__revK`, made unique against every word of every revision.
fn fresh_name(base: &str, rev: usize, revs: &[Rev]) -> String {
    let mut name = format!("{base}__rev{rev}");
    while revs.iter().any(|r| words(&r.text).any(|w| w == name)) {
        name.push('_');
    }
    name
}

/// `rev` (as written) with `map` applied.
pub(crate) fn apply(rev: &Rev, map: &RenameMap) -> Rev {
    let mut w = Walker {
        text: &rev.text,
        map,
        scopes: Vec::new(),
        edits: Vec::new(),
        function: None,
        params_open: false,
    };
    w.walk(rev.tree.root_node());
    let mut edits = w.edits;
    edits.sort_by_key(|(r, _)| r.start);
    rev.replaced(edits)
}

struct Walker<'a> {
    text: &'a str,
    map: &'a RenameMap,
    /// Names declared in enclosing block, parameter and `for` scopes.
    scopes: Vec<BTreeSet<Name>>,
    edits: Vec<(Range<usize>, String)>,
    /// The original name of the renamed function being walked.
    function: Option<String>,
    /// The next parameter list belongs to a function definition: its names go
    /// into the function's scope, which the body shares.
    params_open: bool,
}

impl Walker<'_> {
    fn name_of(&self, node: Node, tag: bool) -> Name {
        Name { tag, text: self.text[node.byte_range()].to_string() }
    }

    fn declare(&mut self, name: Name) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name);
        }
    }

    /// A use (or the file-scope definition) of an ordinary name or a tag.
    fn reference(&mut self, node: Node, tag: bool) {
        let name = self.name_of(node, tag);
        if !tag && self.scopes.iter().all(|s| !s.contains(&name)) {
            match name.text.as_str() {
                "__LINE__" => {
                    let line = self.text[..node.start_byte()].matches('\n').count() + 1;
                    self.edits.push((node.byte_range(), line.to_string()));
                    return;
                }
                "__func__" | "__FUNCTION__" | "__PRETTY_FUNCTION__" => {
                    if let Some(f) = &self.function {
                        self.edits.push((node.byte_range(), format!("\"{f}\"")));
                    }
                    return;
                }
                _ => {}
            }
        }
        if self.scopes.iter().any(|s| s.contains(&name)) {
            return;
        }
        if let Some(new) = self.map.get(&name) {
            self.edits.push((node.byte_range(), new.clone()));
        }
    }

    /// A renamed `main` is an ordinary function, and an ordinary function
    /// that falls off its end returns garbage where `main` returns 0 (C11
    /// 5.1.2.2.3): its body gets the `return 0;` C implies, on the line of
    /// its closing brace, so no line moves. Not for `void main`.
    fn implicit_return(&mut self, def: Node, body: Node) {
        let returns_void =
            def.child_by_field_name("type").is_some_and(|t| &self.text[t.byte_range()] == "void");
        let close = body.child(body.child_count().saturating_sub(1)).filter(|c| c.kind() == "}");
        if let (false, Some(close)) = (returns_void, close) {
            self.edits.push((close.start_byte()..close.start_byte(), "return 0; ".to_string()));
        }
    }

    fn walk_children(&mut self, node: Node) {
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.children(&mut cursor).collect();
        for c in kids {
            self.walk(c);
        }
    }

    /// Walks a declarator whose declared identifier `name` is handled by the caller.
    fn walk_except(&mut self, node: Node, name: Option<Node>) {
        if Some(node) == name {
            return;
        }
        if node.kind() == "parameter_list" || node.child_count() == 0 {
            return self.walk(node);
        }
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.children(&mut cursor).collect();
        for c in kids {
            self.walk_except(c, name);
        }
    }

    /// A declaration, type definition or parameter: the names it declares are
    /// local inside a function, file-scope (and so renamed) outside.
    fn declaration(&mut self, node: Node) {
        let local = !self.scopes.is_empty() && storage_class(self.text, node).is_none_or(|s| s != "extern");
        let ds = declarators(node);
        let mut cursor = node.walk();
        let kids: Vec<Node> = node.children(&mut cursor).collect();
        for c in kids.into_iter().filter(|c| !ds.contains(c)) {
            self.walk(c);
        }
        for d in ds {
            let name = declarator_name(d);
            if let Some(n) = name {
                if local && !declares_function(d) {
                    self.declare(self.name_of(n, false));
                } else {
                    self.reference(n, false);
                }
            }
            self.walk_except(d, name);
        }
    }

    fn walk(&mut self, node: Node) {
        match node.kind() {
            "compound_statement" | "for_statement" => {
                self.scopes.push(BTreeSet::new());
                self.walk_children(node);
                self.scopes.pop();
            }
            "function_definition" => {
                let d = node.child_by_field_name("declarator");
                let name = d.and_then(declarator_name);
                let outer = self.function.take();
                self.function = name
                    .filter(|n| self.map.contains_key(&self.name_of(*n, false)))
                    .map(|n| self.text[n.byte_range()].to_string());
                let mut cursor = node.walk();
                let kids: Vec<Node> = node.children(&mut cursor).collect();
                for c in
                    kids.iter().filter(|c| Some(**c) != d && Some(**c) != node.child_by_field_name("body"))
                {
                    self.walk(*c);
                }
                if let Some(n) = name {
                    self.reference(n, false);
                }
                self.scopes.push(BTreeSet::new());
                self.params_open = true;
                if let Some(d) = d {
                    self.walk_except(d, name);
                }
                self.params_open = false;
                if let Some(b) = node.child_by_field_name("body") {
                    self.walk(b);
                    if self.function.as_deref() == Some("main") {
                        self.implicit_return(node, b);
                    }
                }
                self.scopes.pop();
                self.function = outer;
            }
            "parameter_list" => {
                let own_scope = !std::mem::take(&mut self.params_open);
                if own_scope {
                    self.scopes.push(BTreeSet::new());
                }
                self.walk_children(node);
                if own_scope {
                    self.scopes.pop();
                }
            }
            "declaration" | "type_definition" | "parameter_declaration" => self.declaration(node),
            "struct_specifier" | "union_specifier" | "enum_specifier" => {
                if let Some(n) = node.child_by_field_name("name") {
                    if node.child_by_field_name("body").is_some() && !self.scopes.is_empty() {
                        self.declare(self.name_of(n, true));
                    } else {
                        self.reference(n, true);
                    }
                }
                for c in
                    named_children(node).into_iter().filter(|c| Some(*c) != node.child_by_field_name("name"))
                {
                    self.walk(c);
                }
            }
            "enumerator" => {
                if let Some(n) = node.child_by_field_name("name") {
                    if self.scopes.is_empty() {
                        self.reference(n, false);
                    } else {
                        self.declare(self.name_of(n, false));
                    }
                }
                if let Some(v) = node.child_by_field_name("value") {
                    self.walk(v);
                }
            }
            "field_declaration" => {
                // Member names are not in the ordinary namespace; types and sizes are.
                for c in named_children(node) {
                    if c.kind() != "field_identifier" {
                        self.walk_except(c, declarator_name(c).filter(|n| n.kind() == "field_identifier"));
                    }
                }
            }
            "preproc_def" | "preproc_function_def" => {
                if let Some(n) = node.child_by_field_name("name") {
                    self.reference(n, false);
                }
            }
            "identifier" | "type_identifier" => self.reference(node, false),
            "preproc_arg" | "preproc_params" | "field_identifier" | "statement_identifier" | "comment" => {}
            _ => self.walk_children(node),
        }
    }
}
