//! Compiler-style diagnostics: where, in the files the developer edits, the
//! revisions behave differently. Shared by the gcc-style text
//! (`--diagnostics gcc`) and SARIF.
//!
//! For each confirmed test, every outcome class other than the original's (the
//! class of revision 0) gives one [`Finding`]: "revisions G differ from B on
//! input I: what differs". Its primary location is the code of `g`, the lowest
//! revision of G, at the first meta-branch site on the test's diverging path
//! where no revision of G runs the same code as a revision of B: there the two
//! groups part. Failing that, the first site on the path where `g` and the
//! original run different code; then the same two rules over all sites; then
//! the first line of `g`'s file that the original lacks. Notes follow at every
//! site of the path, one per variant that revisions of B and G run there, in
//! the own file of the lowest of them (past `g` at the primary site), naming
//! the revisions that share it. A list of revisions names the first
//! [`LISTED`] and counts the rest: a pool of thousands of patches would make
//! lines of thousands of numbers, which `report.json` holds whole.

use std::fmt::Write as _;

use crate::cluster::names;
use crate::unify::{CodeSpan, MetaProgram, Pos, Site, SiteKind, VariantTable};

use super::{Outcome, Report, Test};

/// A span in one revision's own file (1-based lines, 1-based byte columns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub revision: usize,
    pub start: Pos,
    pub end: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub location: Location,
    pub message: String,
    /// The site the note is at.
    pub site: usize,
}

/// One difference: an outcome class of a test against the original's class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The test id.
    pub test: usize,
    /// Index into the test's outcomes of the differing class.
    pub outcome: usize,
    pub message: String,
    pub location: Location,
    /// The site the primary location is at, if it is at one.
    pub site: Option<usize>,
    pub notes: Vec<Note>,
}

/// The findings of every test, in test order. `files[k]` is the path that
/// locations in revision k name (for a project, its tree: a location names
/// the touched file in it, `MetaProgram::located_in`).
pub fn findings(report: &Report, map: &MetaProgram, files: &[String]) -> Vec<Finding> {
    let variants = VariantTable::new(map, files.len());
    let mut out = Vec::new();
    for t in &report.tests {
        let Some(base) = t.outcomes.first() else { continue };
        for (i, o) in t.outcomes.iter().enumerate().skip(1) {
            out.push(finding(t, i, o, base, map, &variants, files));
        }
    }
    out
}

/// Some revision of `mine` and some of `theirs` run one variant at `s`.
fn shared(variants: &VariantTable, s: &Site, mine: &[usize], theirs: &[usize]) -> bool {
    let mut run = vec![false; s.variants.len()];
    mine.iter().filter_map(|&r| variants.code(s, r)).for_each(|(v, _)| run[v] = true);
    theirs.iter().filter_map(|&r| variants.code(s, r)).any(|(v, _)| run[v])
}

fn finding(
    t: &Test,
    outcome: usize,
    o: &Outcome,
    base: &Outcome,
    map: &MetaProgram,
    variants: &VariantTable,
    files: &[String],
) -> Finding {
    let g = o.revisions[0];
    let b = base.revisions[0];
    let message = format!(
        "{} {} from {} on input {}: {}",
        names::named(&o.revisions),
        if o.revisions.len() == 1 { "differs" } else { "differ" },
        names::listed(&base.revisions),
        t.inputs_line(),
        difference(o, base)
    );
    let site_of = |id: u32| map.site(id as usize);
    let on_path: Vec<&Site> = t.sites.iter().filter_map(|&s| site_of(s)).collect();
    // Best: no revision of the group shares code with one of the baseline;
    // then: `g` and `b` differ.
    let apart =
        |s: &&Site| variants.code(s, g).is_some() && !shared(variants, s, &o.revisions, &base.revisions);
    let differs =
        |s: &&Site| variants.code(s, g).is_some_and(|(v, _)| variants.code(s, b).map(|(w, _)| w) != Some(v));
    let primary_site = on_path
        .iter()
        .copied()
        .find(apart)
        .or_else(|| on_path.iter().copied().find(differs))
        .or_else(|| map.sites.iter().find(apart))
        .or_else(|| map.sites.iter().find(differs));
    let location = match primary_site.and_then(|s| Some((s, variants.code(s, g)?.1))) {
        Some((s, span)) => located(map, s, span, files),
        None => {
            let (meta_line, line) = first_own_line(map, g, b).unwrap_or((0, 1));
            let pos = Pos { line, col: 1 };
            Location { file: map.located_in(&files[g], meta_line), revision: g, start: pos, end: pos }
        }
    };
    let mut compared: Vec<usize> = base.revisions.iter().chain(&o.revisions).copied().collect();
    compared.sort_unstable();
    let mut notes = Vec::new();
    for s in &on_path {
        let mut noted = vec![false; s.variants.len()];
        for &r in &compared {
            let Some((v, span)) = variants.code(s, r) else { continue };
            if noted[v] || (Some(s.id) == primary_site.map(|p| p.id) && r == g) {
                continue;
            }
            noted[v] = true;
            let sharing: Vec<usize> = s.variants[v].revisions.iter().copied().filter(|&x| x != r).collect();
            let what = if span.start == span.end { "has no code (deleted)" } else { "runs this code" };
            let shared = if sharing.is_empty() {
                "; no other revision has it".to_string()
            } else {
                format!("; so {} {}", if sharing.len() == 1 { "does" } else { "do" }, names::named(&sharing))
            };
            notes.push(Note {
                location: located(map, s, span, files),
                message: format!("revision {r} {what} at {}{shared}", describe(s)),
                site: s.id,
            });
        }
    }
    Finding { test: t.id, outcome, message, location, site: primary_site.map(|s| s.id), notes }
}

/// `span` of `site`, in its revision's file.
fn located(map: &MetaProgram, site: &Site, span: &CodeSpan, files: &[String]) -> Location {
    Location {
        file: map.located_in(&files[span.revision], site.lines.start),
        revision: span.revision,
        start: span.start,
        end: span.end,
    }
}

/// The first line of revision `g`'s file that the meta program has for `g` but
/// not for `b`: where `g`'s own code begins, when no site says more. With
/// the meta line it is on.
fn first_own_line(map: &MetaProgram, g: usize, b: usize) -> Option<(usize, usize)> {
    map.line_map.iter().enumerate().find_map(|(i, origins)| {
        let mine = origins.iter().find(|o| o.revision == g)?;
        (!origins.iter().any(|o| o.revision == b)).then_some((i + 1, mine.line))
    })
}

/// `site 2 (condition in grade)`.
pub fn describe(s: &Site) -> String {
    let kind = match s.kind {
        SiteKind::Statement => "statement",
        SiteKind::ReturnValue => "return value",
        SiteKind::Condition => "condition",
        SiteKind::ForInit => "for-loop initialization",
        SiteKind::ForUpdate => "for-loop step",
        SiteKind::Rhs => "assigned value",
        SiteKind::Initializer => "initializer",
    };
    format!("site {} ({kind} in {})", s.id, s.function)
}

/// What differs between two outcomes, `o` first: `exit 1 vs exit 0`,
/// `stdout "B\n" vs "C\n"`.
pub fn difference(o: &Outcome, base: &Outcome) -> String {
    let mut parts = Vec::new();
    let (st, bt) = (o.status_text(), base.status_text());
    if st != bt {
        parts.push(format!("{st} vs {bt}"));
    }
    if o.stdout != base.stdout {
        parts.push(stdout_difference(&o.stdout, &base.stdout));
    }
    if o.annotations != base.annotations {
        parts.push(format!(
            "psychic_output [{}] vs [{}]",
            o.annotations.join(", "),
            base.annotations.join(", ")
        ));
    }
    if parts.is_empty() { "different behaviour".into() } else { parts.join(", ") }
}

/// Whole outputs when short; otherwise the first line that differs.
fn stdout_difference(a: &str, b: &str) -> String {
    const SHORT: usize = 40;
    if a.len() <= SHORT && b.len() <= SHORT {
        return format!("stdout {a:?} vs {b:?}");
    }
    let (la, lb): (Vec<&str>, Vec<&str>) =
        (a.split_inclusive('\n').collect(), b.split_inclusive('\n').collect());
    let i = (0..la.len().max(lb.len())).find(|&i| la.get(i) != lb.get(i)).unwrap_or(0);
    let cut = |s: Option<&&str>| {
        let s = s.copied().unwrap_or("");
        if s.len() > SHORT {
            format!("{:?}…", &s[..s.floor_char_boundary(SHORT)])
        } else {
            format!("{s:?}")
        }
    };
    format!("stdout line {}: {} vs {}", i + 1, cut(la.get(i)), cut(lb.get(i)))
}

/// gcc's format: `FILE:LINE:COL: warning: MESSAGE [psychic]`, then the notes.
/// With `color`, gcc's colours (bold locations, magenta warnings, cyan notes).
pub fn gcc(findings: &[Finding], color: bool) -> String {
    let style = |text: String, s: console::Style| s.force_styling(color).apply_to(text).to_string();
    let bold = console::Style::new().bold();
    let mut s = String::new();
    for f in findings {
        let l = &f.location;
        let _ = writeln!(
            s,
            "{} {} {} [{}]",
            style(format!("{}:{}:{}:", l.file, l.start.line, l.start.col), bold.clone()),
            style("warning:".into(), console::Style::new().bold().magenta()),
            f.message,
            style("psychic".into(), console::Style::new().bold().magenta()),
        );
        for n in &f.notes {
            let l = &n.location;
            let _ = writeln!(
                s,
                "{} {} {}",
                style(format!("{}:{}:{}:", l.file, l.start.line, l.start.col), bold.clone()),
                style("note:".into(), console::Style::new().bold().cyan()),
                n.message
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::{Outcome, difference};

    #[test]
    fn differences_name_what_differs() {
        assert_eq!(
            difference(&Outcome::exited("B\n", 0), &Outcome::exited("C\n", 0)),
            r#"stdout "B\n" vs "C\n""#
        );
        assert_eq!(difference(&Outcome::exited("x", 1), &Outcome::exited("x", 0)), "exit 1 vs exit 0");
        let long = |last: &str| format!("{}{last}\n", "line of output that is long enough\n".repeat(3));
        assert_eq!(
            difference(&Outcome::exited(&long("yes"), 0), &Outcome::exited(&long("no"), 0)),
            r#"stdout line 4: "yes\n" vs "no\n""#
        );
    }
}
