//! SARIF 2.1.0 (`--sarif FILE`), for code-scanning tools: one result per
//! [`Finding`], its notes as related locations. Relative paths are relative to
//! `%SRCROOT%`, the directory psychic ran in.
//!
//! Built with `serde-sarif`: artifacts per revision; relative paths are URI
//! references against `%SRCROOT%`, absolute ones `file://` URIs (the `url`
//! crate encodes both).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use serde_sarif::sarif as s;

use super::Report;
use super::diagnostics::{Finding, Location};

/// The rule every result reports.
pub const RULE_ID: &str = "psychic/behaviour-difference";

/// The SARIF log of `findings`, as JSON text. `files[k]` is revision k's file;
/// `cwd` is what relative paths are relative to.
pub fn sarif(report: &Report, findings: &[Finding], files: &[String], cwd: &Path) -> String {
    let base = url::Url::from_directory_path(cwd).ok();
    let loc = |l: &Location, message: Option<&str>, id: Option<i64>| {
        let (uri, base_id) = uri(&l.file, cwd, base.as_ref());
        let artifact = s::ArtifactLocation::builder().uri(uri);
        let artifact = match base_id {
            Some(b) => artifact.uri_base_id(b).build(),
            None => artifact.build(),
        };
        let region = s::Region::builder()
            .start_line(l.start.line as i64)
            .start_column(l.start.col as i64)
            .end_line(l.end.line as i64)
            .end_column(l.end.col.max(l.start.col + usize::from(l.end == l.start)) as i64)
            .build();
        let physical = s::PhysicalLocation::builder().artifact_location(artifact).region(region).build();
        let b = s::Location::builder().physical_location(physical);
        match (message, id) {
            (Some(m), Some(id)) => b.message(s::Message::builder().text(m).build()).id(id).build(),
            (Some(m), None) => b.message(s::Message::builder().text(m).build()).build(),
            _ => b.build(),
        }
    };
    let results: Vec<s::Result> = findings
        .iter()
        .map(|f| {
            let test = report.test(f.test);
            let related: Vec<s::Location> = f
                .notes
                .iter()
                .enumerate()
                .map(|(i, n)| loc(&n.location, Some(&n.message), Some(i as i64)))
                .collect();
            let mut props = BTreeMap::new();
            props.insert("test".to_string(), json!(f.test));
            if let Some(t) = test {
                props.insert("ktest".into(), json!(t.ktest));
                props.insert("inputs".into(), serde_json::to_value(&t.inputs).unwrap_or(Value::Null));
                props.insert("outcomes".into(), serde_json::to_value(&t.outcomes).unwrap_or(Value::Null));
                props.insert("revisions".into(), json!(t.outcomes[f.outcome].revisions));
            }
            s::Result::builder()
                .rule_id(RULE_ID)
                .rule_index(0)
                .level(s::ResultLevel::Warning)
                .message(s::Message::builder().text(&f.message).build())
                .locations(vec![loc(&f.location, None, None)])
                .related_locations(related)
                .properties(s::PropertyBag::builder().additional_properties(props).build())
                .build()
        })
        .collect();
    let rule = s::ReportingDescriptor::builder()
        .id(RULE_ID)
        .name("BehaviourDifference")
        .short_description(
            s::MultiformatMessageString::builder().text("Candidate patches behave differently").build(),
        )
        .full_description(
            s::MultiformatMessageString::builder()
                .text(
                    "A test input, found by differential symbolic execution and confirmed by running every \
                     revision natively, on which some revisions behave differently from the original's \
                     outcome class (stdout, exit status, crash, or psychic_output annotations).",
                )
                .build(),
        )
        .build();
    let driver = s::ToolComponent::builder()
        .name("psychic")
        .version(report.psychic_version.clone())
        .semantic_version(report.psychic_version.clone())
        .rules(vec![rule])
        .build();
    let artifacts: Vec<s::Artifact> = report
        .revisions
        .iter()
        .zip(files)
        .map(|(r, file)| {
            let (u, b) = uri(file, cwd, base.as_ref());
            let al = s::ArtifactLocation::builder().uri(u);
            let al = match b {
                Some(b) => al.uri_base_id(b).build(),
                None => al.build(),
            };
            s::Artifact::builder()
                .location(al)
                .description(s::Message::builder().text(format!("revision {}", r.index)).build())
                .roles(vec![json!("analysisTarget")])
                .build()
        })
        .collect();
    let run = s::Run::builder()
        .tool(s::Tool::builder().driver(driver).build())
        .results(results)
        .artifacts(artifacts)
        .column_kind(json!("unicodeCodePoints"))
        .invocations(vec![
            s::Invocation::builder()
                .execution_successful(true)
                .properties(
                    s::PropertyBag::builder()
                        .additional_properties(BTreeMap::from([
                            ("partial".to_string(), json!(report.stats.partial)),
                            ("clusters".to_string(), json!(report.clusters)),
                        ]))
                        .build(),
                )
                .build(),
        ]);
    let run = match &base {
        Some(b) => run
            .original_uri_base_ids(BTreeMap::from([(
                SRCROOT.to_string(),
                s::ArtifactLocation::builder().uri(b.as_str()).build(),
            )]))
            .build(),
        None => run.build(),
    };
    let log = s::Sarif::builder().version(json!("2.1.0")).schema(s::SCHEMA_URL).runs(vec![run]).build();
    serde_json::to_string_pretty(&log).expect("SARIF serializes") + "\n"
}

const SRCROOT: &str = "%SRCROOT%";

/// A path as a URI reference: relative to `%SRCROOT%` (`cwd`) when it is
/// relative, `file://` when absolute; percent-encoded either way.
fn uri(path: &str, cwd: &Path, base: Option<&url::Url>) -> (String, Option<String>) {
    let p = Path::new(path);
    let Ok(abs) = url::Url::from_file_path(cwd.join(p)) else { return (path.to_string(), None) };
    if !p.is_absolute()
        && let Some(rel) = base.and_then(|b| b.make_relative(&abs))
    {
        return (rel, Some(SRCROOT.to_string()));
    }
    (abs.to_string(), None)
}
