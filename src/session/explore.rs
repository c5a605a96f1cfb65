//! The second stage: the engine explores the meta program while the
//! differentiator pairs its halted paths, and native fuzzing (with
//! enumeration of a small domain) runs beside it. [`Exchange`] owns the
//! fuzzer and carries what the two sides give each other: seeds one way,
//! candidates, enumeration's proofs and the pairs already told apart the
//! other.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::prepare::{Builds, Sources};
use super::{Plan, Watch};
use crate::diff::{DiffConfig, Differentiator};
use crate::exec::{self, Control, ExecConfig, Executor, HaltContext, HaltObserver, HaltedPath, RunSummary};
use crate::fuzz::{FuzzConfig, FuzzStats, Fuzzer};
use crate::ktest::KTest;
use crate::libs::LibcUse;
use crate::posix;

/// What exploration left for the conclusion.
pub(super) struct Explored<'a> {
    pub diff: Differentiator<'a>,
    pub summary: RunSummary,
    pub fuzzing: Option<FuzzStats>,
    /// Which C library served the program.
    pub libc: LibcUse,
}

/// Runs the engine with the differentiator and, where it can run, fuzzing;
/// then fuzzing alone while the budget lasts, if the answer is not exact.
pub(super) fn explore<'a>(
    plan: &Plan,
    s: &Sources,
    b: &'a Builds,
    out: &Path,
    watch: &dyn Watch,
) -> Result<Explored<'a>> {
    let (module, libc) = b.module()?;
    let n = s.meta.revisions.len();
    let argv: Vec<String> =
        std::iter::once("meta.bc".to_string()).chain(plan.command.words().iter().cloned()).collect();
    let user_tests = match &plan.tests {
        Some(dir) => read_tests(dir, &argv)?,
        None => Vec::new(),
    };
    let cfg = engine_config(plan, s, &argv, &user_tests);
    let dcfg = DiffConfig {
        outputs: plan.outputs,
        replay_timeout: plan.replay_timeout,
        perturbed: Some(b.perturbed.clone()),
        deadline: plan.budget.deadline(),
        jobs: plan.jobs.max(1),
        same_as: s
            .sources
            .iter()
            .map(|r| s.sources.iter().position(|o| o.text == r.text).unwrap_or(r.index))
            .collect(),
    };
    let fuzz_cfg = b.fuzz_server.as_ref().ok().map(|server| FuzzConfig {
        server: server.clone(),
        argv: argv.clone(),
        args: plan.command.arg_slots(),
        stdin: plan.command.stdin_len().map(|n| n as usize),
        revisions: n,
        same_as: dcfg.same_as.clone(),
        outputs: dcfg.outputs,
        run_timeout: dcfg.replay_timeout.min(Duration::from_secs(1)),
        constants: crate::fuzz::Constants::of_program(&s.meta.text),
        seed: 0x5053_5943,
        deadline: plan.budget.deadline(),
        enumeration_proof: match crate::ir::Module::declarations(
            &b.bitcode.iter().map(|p| p.as_path()).collect::<Vec<_>>(),
        ) {
            Ok(f) => crate::fuzz::sweep::proof_blocker(&f),
            Err(e) => Some(e.to_string()),
        },
        engine: plan.command.seed_shape().map(|shape| (exec::SeedInbox::default(), shape)),
        tests: user_tests,
        sites: s.meta.sites.iter().map(|site| site.id as u32 + 1).max().unwrap_or(0),
    });
    let mut diff = Differentiator::new(dcfg, &b.native, n, out, argv);
    let mut cfg = cfg;
    cfg.seed_inbox = fuzz_cfg.as_ref().and_then(|f| f.engine.as_ref().map(|(inbox, _)| inbox.clone()));
    let mut exchange = Exchange::new(&mut diff, plan, b, fuzz_cfg, watch);
    watch.stage("explore", "starting".into());
    let summary = {
        let mut ex = Executor::new(&module, cfg)?;
        ex.set_observer(Box::new(&mut exchange));
        ex.run()
    };
    let exact = summary.stopped_early.is_none()
        && summary.coverage.reasons(None).is_empty()
        && exchange.diff.no_gaps();
    if !exact {
        exchange.fuzz_on(plan.budget.deadline(), plan.fuzz_stall);
    }
    let fuzzing = exchange.finish().map(|f| FuzzStats {
        engine_seeds: summary.stats.inbox_seeds,
        engine_states: summary.stats.inbox_seeded,
        engine_paths: summary.stats.inbox_paths,
        ..f
    });
    drop(exchange);
    if let Some(e) = diff.error.take() {
        return Err(e).context("native confirmation failed");
    }
    // A budget spent before exploration met an input proves nothing either way.
    if !diff.saw_input() && summary.stopped_early.is_none() {
        bail!(
            "{}: the program makes no symbolic input (no klee_make_symbolic, klee_int or klee_range \
             on any path), so every revision runs on one fixed input; mark the inputs symbolic",
            plan.orig.display()
        );
    }
    Ok(Explored { diff, summary, fuzzing, libc })
}

/// The engine's configuration: the plan's, with what the program decides
/// (entry, command line, revisions, the sites' variants, seeds, budget).
fn engine_config(plan: &Plan, s: &Sources, argv: &[String], user_tests: &[KTest]) -> ExecConfig {
    let mut cfg = ExecConfig {
        entry: plan.entry(),
        argv: argv.to_vec(),
        keep_paths: false,
        cross_seed: true,
        revisions: Some(s.meta.revisions.len() as u32),
        site_variants: s
            .meta
            .sites
            .iter()
            .map(|site| {
                let variants = site.variants.iter().map(|v| {
                    let mut set = exec::RevSet::empty();
                    v.revisions.iter().for_each(|&r| set.insert(r as u32));
                    set
                });
                (site.id as u32, variants.collect())
            })
            .collect(),
        ..plan.engine.clone()
    };
    // ktests seed the engine too; stdin texts only fuzzing, as the engine's
    // stdin model has no text to follow.
    cfg.seeds.extend(
        user_tests.iter().filter(|t| t.objects.iter().any(|o| !o.name.starts_with("stdin"))).cloned(),
    );
    // --max-time bounds the whole command: unify and compile took their share.
    cfg.max_time = plan.budget.limit;
    cfg.budget_start = Some(plan.budget.start);
    cfg
}

/// The user's tests in `dir` (sorted by name): ktests as they are, any other
/// file as the text of stdin, with the run's command line.
fn read_tests(dir: &Path, argv: &[String]) -> Result<Vec<KTest>> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("--tests {}: cannot read the directory", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).with_context(|| format!("{}: cannot read", f.display()))?;
            if bytes.starts_with(b"KTEST") || bytes.starts_with(b"BOUT\n") {
                return KTest::parse(&bytes)
                    .map_err(|(at, e)| anyhow::anyhow!("{}: byte {at}: not a ktest: {e}", f.display()));
            }
            let objects = posix::stdin_objects(&bytes).to_vec();
            Ok(KTest { args: argv.to_vec(), sym_argvs: 0, sym_argv_len: 0, objects })
        })
        .collect()
}

/// The differentiator with the fuzzer beside it: a halt observer that hands
/// the engine's halts to the differentiator and, between them, carries
/// fuzzing's tests and enumeration's results to the differentiator and the
/// differentiator's seeds and settled pairs to fuzzing; it shows the run's
/// progress to `watch`.
pub(super) struct Exchange<'d, 'a, 'w> {
    diff: &'d mut Differentiator<'a>,
    fuzzer: Option<Fuzzer>,
    /// Why enumeration cannot run whatever the domain, if it cannot.
    no_enumeration: Option<String>,
    /// The confirmed tests fuzzing has been told of.
    told: usize,
    watch: &'w dyn Watch,
}

impl<'d, 'a, 'w> Exchange<'d, 'a, 'w> {
    fn new(
        diff: &'d mut Differentiator<'a>,
        plan: &Plan,
        b: &Builds,
        fuzz: Option<FuzzConfig>,
        watch: &'w dyn Watch,
    ) -> Self {
        let no_enumeration = if plan.entry() == posix::POSIX_ENTRY {
            Some(
                "the inputs are the symbolic environment's (stdin, arguments, files), not klee_make_symbolic objects"
                    .to_string(),
            )
        } else {
            b.fuzz_server.as_ref().err().map(|why| format!("no fuzzing ({why})"))
        };
        if fuzz.is_none() && plan.tests.is_some() {
            watch.advise("--tests seeds fuzzing, which does not run here (--no-fuzz, or symbolic files)");
        }
        if fuzz.is_some() {
            diff.offer_seeds();
        }
        Exchange { diff, fuzzer: fuzz.map(Fuzzer::start), no_enumeration, told: 0, watch }
    }

    /// The differentiator's seeds and newly settled pairs, to fuzzing.
    fn give(&mut self) {
        let Some(f) = &self.fuzzer else { return };
        for seed in self.diff.take_seeds() {
            f.seed(&seed);
        }
        if self.diff.tests.len() > self.told {
            self.told = self.diff.tests.len();
            let diff = &*self.diff;
            f.told_apart(|a, b| diff.apart(a as u32, b as u32));
        }
    }

    /// Fuzzing's tests and enumeration's results, confirmed by the
    /// differentiator.
    fn take(fuzzer: Option<&Fuzzer>, diff: &mut Differentiator<'_>) -> std::io::Result<()> {
        let Some(f) = fuzzer else { return Ok(()) };
        diff.confirm_found(f.take_found(), f.take_enumerated())
    }

    /// Takes what fuzzing found; on an I/O failure the run stops.
    fn take_or_stop(&mut self) -> Control {
        if let Err(e) = Self::take(self.fuzzer.as_ref(), self.diff) {
            self.diff.error = Some(e);
            return Control::Stop;
        }
        self.give();
        Control::Continue
    }

    /// Fuzzing alone, after exploration: until every pair is told apart, the
    /// budget ends, or the corpus has not grown for `stall`. Without a
    /// budget (`--max-time`), fuzzing ends with exploration.
    fn fuzz_on(&mut self, deadline: Option<Instant>, stall: Duration) {
        let Some(deadline) = deadline else { return };
        if self.fuzzer.is_none() || Instant::now() >= deadline {
            return;
        }
        self.watch.stage("fuzz", "exploration ended; fuzzing on".into());
        loop {
            std::thread::sleep(Duration::from_millis(100));
            if self.take_or_stop() == Control::Stop {
                return;
            }
            let Some(f) = &self.fuzzer else { return };
            if self.diff.done() || f.is_finished() || f.stalled_for() >= stall || Instant::now() >= deadline {
                return;
            }
        }
    }

    /// Confirms what fuzzing found, then stops it: its statistics. An
    /// enumeration left over is taken too: what it proves, or why it did not
    /// finish.
    fn finish(&mut self) -> Option<FuzzStats> {
        if let Err(e) = Self::take(self.fuzzer.as_ref(), self.diff) {
            self.diff.error.get_or_insert(e);
        }
        let (stats, left) = self.fuzzer.take()?.finish();
        if let Err(e) = self.diff.confirm_found(Vec::new(), left) {
            self.diff.error.get_or_insert(e);
        }
        Some(stats)
    }
}

impl HaltObserver for Exchange<'_, '_, '_> {
    fn on_halt(&mut self, path: &HaltedPath, cx: &mut HaltContext<'_>) -> Control {
        if self.take_or_stop() == Control::Stop {
            return Control::Stop;
        }
        let fuzzer = self.fuzzer.as_ref();
        let control = self.diff.halt_with(path, cx, &mut |d| Self::take(fuzzer, d));
        self.give();
        control
    }

    /// What the native engines found meanwhile: exploration may not halt a
    /// path for a long while.
    fn on_progress(&mut self, p: &exec::Progress<'_>) -> Control {
        if let Some(f) = &self.fuzzer {
            f.wait_for_proof();
        }
        if self.take_or_stop() == Control::Stop {
            return Control::Stop;
        }
        let tests = &self.diff.tests;
        let revisions = self.diff.revisions();
        self.watch.explored(p, &|| {
            let classes: Vec<Vec<u32>> = tests.iter().map(|t| t.partition.classes.clone()).collect();
            let clusters = crate::cluster::clusters(revisions, &classes).len();
            let plural = |k: usize| if k == 1 { "" } else { "s" };
            format!("{} test{}, {clusters} cluster{}", tests.len(), plural(tests.len()), plural(clusters))
        });
        self.diff.on_progress(p)
    }

    fn on_end(&mut self, cx: &mut HaltContext<'_>) {
        let fuzzer = self.fuzzer.as_ref();
        self.diff.end_with(cx, |d| Self::take(fuzzer, d));
        self.give();
    }

    fn on_domain(&mut self, domain: Result<&exec::InputDomain, &str>) {
        match (domain, &self.no_enumeration, &self.fuzzer) {
            (Ok(d), None, Some(f)) => f.enumerate(d.clone()),
            (d, Some(why), _) => {
                self.diff.enumeration = Some(crate::fuzz::EnumerationStats::not_run(d.ok(), why));
            }
            (d, None, _) => self.diff.on_domain(d),
        }
    }

    fn open_pairs(&mut self) -> Option<Vec<(u32, u32)>> {
        self.diff.open_pairs()
    }

    fn proved_by_exploration(&mut self, pairs: &[(u32, u32)]) {
        self.diff.proved_by_exploration(pairs)
    }
}
