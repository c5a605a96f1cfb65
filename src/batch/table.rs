//! The results of a batch: each set's [`SetResult`] read and written
//! atomically, and the summary table of one or more output directories
//! (shards that wrote apart, merged).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

use super::{SetResult, Status};
use crate::report::Report;

pub fn read_result(path: &Path) -> Option<SetResult> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Written aside and renamed: a result is whole or absent.
pub fn write_result(path: &Path, r: &SetResult) -> Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let text = serde_json::to_vec_pretty(r).expect("results serialise");
    std::fs::write(&tmp, text).with_context(|| format!("{}: cannot write", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("{}: cannot write", path.display()))
}

pub fn read_report(path: &Path) -> Option<Report> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Every result under the output directories `outs`, by manifest line; a
/// set two directories both hold counts once.
pub fn gather(outs: &[impl AsRef<Path>]) -> Result<Vec<SetResult>> {
    let mut by_name: BTreeMap<String, SetResult> = BTreeMap::new();
    for out in outs {
        let dir = out.as_ref().join("results");
        let entries = std::fs::read_dir(&dir).with_context(|| {
            format!("{}: no batch results here (is it a batch's output directory?)", dir.display())
        })?;
        for e in entries {
            let path = e.with_context(|| format!("reading {}", dir.display()))?.path();
            if path.extension().is_some_and(|x| x == "json")
                && let Some(r) = read_result(&path)
            {
                by_name.entry(r.name.clone()).or_insert(r);
            }
        }
    }
    let mut all: Vec<SetResult> = by_name.into_values().collect();
    all.sort_by_key(|r| (r.line, r.name.clone()));
    Ok(all)
}

/// The summary: a Markdown table, one row a set, and a line of counts.
pub fn markdown(results: &[SetResult]) -> String {
    let mut s = String::from(
        "| line | set | status | revisions | clusters | tests | partial | seconds |\n|---|---|---|---|---|---|---|---|\n",
    );
    let opt = |v: Option<usize>| v.map_or("".to_string(), |v| v.to_string());
    for r in results {
        let clusters = r.clusters.as_ref().map_or(String::new(), |c| shown_clusters(c));
        let partial = r.partial.map_or("", |p| if p { "yes" } else { "no" });
        let status = match &r.error {
            Some(e) => {
                format!("{} ({})", status_word(r.status), e.lines().last().unwrap_or("").replace('|', "\\|"))
            }
            None => status_word(r.status).to_string(),
        };
        s += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.1} |\n",
            r.line,
            r.name,
            status,
            opt(r.revisions),
            clusters,
            opt(r.tests),
            partial,
            r.seconds
        );
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    results.iter().for_each(|r| *counts.entry(status_word(r.status)).or_default() += 1);
    let counts: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    s += &format!("\n{} sets: {}\n", results.len(), counts.join(", "));
    s
}

pub fn status_word(s: Status) -> &'static str {
    match s {
        Status::Done => "done",
        Status::Failed => "failed",
        Status::Crashed => "crashed",
        Status::TimedOut => "timed out",
        Status::Invalid => "invalid",
    }
}

/// `{0,2} {1}`, cut after 60 characters with the count of clusters.
fn shown_clusters(c: &[Vec<usize>]) -> String {
    let all: Vec<String> = c
        .iter()
        .map(|k| format!("{{{}}}", k.iter().map(usize::to_string).collect::<Vec<_>>().join(",")))
        .collect();
    let text = all.join(" ");
    if text.len() <= 60 {
        return text;
    }
    let cut = text.char_indices().take_while(|(i, _)| *i < 60).last().map_or(0, |(i, _)| i);
    format!("{}… ({} clusters)", &text[..cut], c.len())
}
