//! Which C library serves each function a program calls, decided in one
//! place, in one order: the engine's own functions first
//! (`exec::engine_provides`: the KLEE API, the printf family and the other
//! output functions, the heap, exit), then the libc model
//! (runtime/symbolic/: fast, written for symbolic execution, and its outputs
//! stay structured), then musl 1.2.3 beneath both (`compile::MuslBuild`),
//! linked the way a static archive is (`ir::Archive`): only the members
//! that define what is still undefined, and never one that would define
//! what the engine or the model already provides. A call that none of them
//! serves stays an unmodelled call, which ends its path as an approximation.
//! Programs are compiled against glibc's headers, so musl serves only where
//! the two agree on the types; what they do not agree on is `LEFT_OUT`.
//! [`LibcUse`] says which served what; the reports carry it.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::compile::{CompileError, MUSL_VERSION, MuslBuild, Toolchain};
use crate::ir::{Archive, LoadError, Module};

/// musl's functions that a program built against glibc's headers cannot
/// call: their types differ (glibc's `regoff_t` is an `int`, musl's a
/// `long`, and their `regex_t` differ). No member that defines one is
/// linked; a call stays unmodelled.
/// glibc's `strerror_r` under `_GNU_SOURCE` returns the message, musl's
/// (XSI's) an `int`.
const LEFT_OUT: &[&str] = &["regcomp", "regexec", "regerror", "regfree", "strerror_r"];

/// musl's public functions known to behave as glibc 2.36's in the C locale:
/// fully specified by C and POSIX, with no room for an implementation's
/// choice on what a program can observe, and checked against glibc's by
/// tests/c/musl/. A proof may rest on these. Every other function musl
/// serves is a departure (`Module::departures`): the native build runs
/// glibc's, so a path that calls it is approximated, and no proof rests on
/// it.
const AGREES: &[&str] = &[
    "a64l",
    "bcmp",
    "bcopy",
    "bzero",
    "drand48",
    "erand48",
    "explicit_bzero",
    "ffs",
    "ffsl",
    "ffsll",
    "getsubopt",
    "hcreate",
    "hdestroy",
    "hsearch",
    "imaxabs",
    "imaxdiv",
    "index",
    "insque",
    "isatty",
    "jrand48",
    "l64a",
    "lcong48",
    "lfind",
    "lldiv",
    "lrand48",
    "lsearch",
    "memccpy",
    "memmem",
    "mempcpy",
    "mrand48",
    "nrand48",
    "remque",
    "rindex",
    "seed48",
    "srand48",
    "stpncpy",
    "strcasestr",
    "strlcat",
    "strlcpy",
    "strsep",
    "swab",
    "tdelete",
    "tdestroy",
    "tfind",
    "tsearch",
    "twalk",
    "wcpcpy",
    "wcpncpy",
    "wcscat",
    "wcschr",
    "wcscmp",
    "wcscpy",
    "wcscspn",
    "wcsdup",
    "wcslen",
    "wcsncat",
    "wcsncmp",
    "wcsncpy",
    "wcsnlen",
    "wcspbrk",
    "wcsrchr",
    "wcsspn",
    "wcsstr",
    "wcstok",
    "wmemchr",
    "wmemcmp",
    "wmemcpy",
    "wmemmove",
    "wmemset",
    "write",
];

/// Where musl is known to differ from glibc 2.36, each checked here.
const DIVERGES: &[(&str, &str)] = &[
    ("getopt", "prints musl's diagnostics and does not permute argv as glibc's does"),
    ("getopt_long", "prints musl's diagnostics, not glibc's"),
    ("getopt_long_only", "prints musl's diagnostics, not glibc's"),
    ("strerror", "has musl's messages, not glibc's (strerror(0))"),
    ("strerror_l", "has musl's messages, not glibc's (strerror(0))"),
    ("strsignal", "has musl's messages, not glibc's"),
    ("strptime", "leaves tm_wday and tm_yday as they were, where glibc computes them"),
    ("strverscmp", "orders digits against letters otherwise than glibc's (\"1\" after \"a\")"),
    ("basename", "is POSIX's, where a program built with glibc's <string.h> calls GNU's"),
    ("qsort_r", "orders equal elements otherwise than glibc's merge sort"),
    ("nl_langinfo", "names the C locale's codeset ASCII, where glibc says ANSI_X3.4-1968"),
    ("rand_r", "is another generator than glibc's"),
];

/// The functions whose results hang on multibyte or wide characters: in the
/// C locale musl takes the bytes 0x80-0xff as characters and classifies by
/// Unicode, where glibc refuses them (EILSEQ) and classifies ASCII only.
const DIVERGES_ABOVE_ASCII: &[&str] = &[
    "btowc",
    "mblen",
    "mbrlen",
    "mbrtowc",
    "mbsnrtowcs",
    "mbsrtowcs",
    "mbstowcs",
    "mbtowc",
    "wcrtomb",
    "wcsnrtombs",
    "wcsrtombs",
    "wcstombs",
    "wctob",
    "wctomb",
    "iswalnum",
    "iswalpha",
    "iswblank",
    "iswcntrl",
    "iswctype",
    "iswdigit",
    "iswgraph",
    "iswlower",
    "iswprint",
    "iswpunct",
    "iswspace",
    "iswupper",
    "iswxdigit",
    "towctrans",
    "towlower",
    "towupper",
    "wcswidth",
    "wcwidth",
];

/// Why a call to musl's public `name` may not behave as glibc's does under
/// the native build; `None` where it is known to (`AGREES`).
fn departure(name: &str) -> Option<String> {
    if AGREES.contains(&name) {
        return None;
    }
    let why = match DIVERGES.iter().find(|(n, _)| *n == name) {
        Some((_, why)) => (*why).to_string(),
        None if DIVERGES_ABOVE_ASCII.contains(&name) => {
            "takes bytes above 0x7f otherwise than glibc's C locale".to_string()
        }
        None => "is not known to behave as glibc's".to_string(),
    };
    Some(format!("musl's {name} stands for glibc's, and {why}"))
}

#[derive(Debug, thiserror::Error)]
pub enum LibsError {
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Load(#[from] LoadError),
}

/// The libraries a program is linked with, for the engine.
#[derive(Debug, Default)]
pub struct Libs {
    /// The libc model's bitcode; empty for a program run without a libc.
    model: Vec<PathBuf>,
    /// musl's members, when its source was fetched (`.ci/deps`).
    musl: Option<Archive>,
}

/// Which libraries served the program, for the reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibcUse {
    /// The libc model was linked.
    pub model: bool,
    /// The musl release linked beneath it; `None` when it was not available.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub musl: Option<String>,
    /// The functions and objects musl served, by their public names (its
    /// internal `__` names aside), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub musl_symbols: Vec<String>,
}

impl fmt::Display for LibcUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.model {
            return f.write_str("none");
        }
        f.write_str("psychic model")?;
        match &self.musl {
            None => f.write_str(" (musl not available: `.ci/deps` fetches it)"),
            Some(v) if self.musl_symbols.is_empty() => write!(f, ", with musl {v} beneath (unused)"),
            Some(v) => write!(f, ", with musl {v} for {}", self.musl_symbols.join(", ")),
        }
    }
}

impl Libs {
    /// The libc model, with musl beneath it when its source is there; both
    /// from psychic's cache, built into it the first time (the model into
    /// `scratch` without a cache).
    pub fn prepare(tc: &Toolchain, scratch: &Path) -> Result<Libs, LibsError> {
        Libs::with_musl(tc, tc.libc_model_cached(scratch)?)
    }

    /// The libc model's bitcode `model`, with musl beneath it when its
    /// source is there (from psychic's cache, built into it the first time).
    pub fn with_musl(tc: &Toolchain, model: Vec<PathBuf>) -> Result<Libs, LibsError> {
        let musl = match tc.musl_cached()? {
            Some(build) => Some(archive(&build)?),
            None => None,
        };
        Ok(Libs { model, musl })
    }

    /// The libc model's bitcode files alone, without musl.
    pub fn model_only(model: Vec<PathBuf>) -> Libs {
        Libs { model, musl: None }
    }

    /// No libc at all: the program's bitcode runs as it is.
    pub fn none() -> Libs {
        Libs::default()
    }

    /// The program (its first unit, then `units`) linked with the
    /// libraries, as the engine runs it, and which served what.
    pub fn load(&self, program: &Path, units: &[&Path]) -> Result<(Module, LibcUse), LoadError> {
        let libs: Vec<&Path> = units.iter().copied().chain(self.model.iter().map(PathBuf::as_path)).collect();
        let model = !self.model.is_empty();
        let Some(archive) = self.musl.as_ref().filter(|_| model) else {
            return Ok((Module::load_linked(program, &libs)?, LibcUse { model, ..LibcUse::default() }));
        };
        let provided = |s: &str| crate::exec::engine_provides(s) || LEFT_OUT.contains(&s);
        let (mut module, pulled) = Module::load_with_archive(program, &libs, archive, &provided)?;
        // Every public function of a linked member, not only those the link
        // asked for: the program may call a member's other functions too.
        for name in pulled.iter().flat_map(|p| &p.defines).filter(|d| !d.starts_with("__")) {
            let Some(&f) = module.func_by_name.get(name) else { continue };
            if module.func(f).body.is_some()
                && let Some(why) = departure(name)
            {
                module.departures.resize(module.funcs.len(), None);
                module.departures[f.index()] = Some(why);
            }
        }
        let mut musl_symbols: Vec<String> =
            pulled.into_iter().map(|p| p.symbol).filter(|s| !s.starts_with("__")).collect();
        musl_symbols.sort();
        musl_symbols.dedup();
        Ok((module, LibcUse { model, musl: Some(MUSL_VERSION.to_string()), musl_symbols }))
    }
}

/// The index of musl's members, from its cache entry (`index`), made and
/// written there the first time.
fn archive(build: &MuslBuild) -> Result<Archive, LoadError> {
    let path = build.dir.join("index");
    if let Some(a) = std::fs::read_to_string(&path).ok().and_then(|t| Archive::from_text(&build.dir, &t)) {
        return Ok(a);
    }
    let a = Archive::index(&build.members)?;
    // Written aside and renamed, so that a reader never sees part of it;
    // without a writable entry the next run indexes again.
    if let Ok(mut tmp) = tempfile::NamedTempFile::new_in(&build.dir) {
        use std::io::Write;
        if tmp.write_all(a.to_text().as_bytes()).is_ok() {
            let _ = tmp.persist(&path);
        }
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::{AGREES, DIVERGES, DIVERGES_ABOVE_ASCII, LibcUse, departure};

    #[test]
    fn a_function_either_agrees_with_glibc_or_departs_with_a_reason() {
        for n in DIVERGES.iter().map(|(n, _)| *n).chain(DIVERGES_ABOVE_ASCII.iter().copied()) {
            assert!(!AGREES.contains(&n), "{n} both agrees and diverges");
        }
        assert_eq!(departure("strsep"), None);
        let why = departure("strverscmp").unwrap();
        assert!(why.starts_with("musl's strverscmp stands for glibc's, and orders digits"), "{why}");
        assert!(departure("mbrtowc").unwrap().contains("above 0x7f"));
        assert!(departure("fnmatch").unwrap().contains("not known to behave as glibc's"));
    }

    #[test]
    fn the_libc_line_says_which_library_served() {
        let used = |musl: Option<&str>, symbols: &[&str]| LibcUse {
            model: true,
            musl: musl.map(String::from),
            musl_symbols: symbols.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(LibcUse::default().to_string(), "none");
        assert_eq!(used(None, &[]).to_string(), "psychic model (musl not available: `.ci/deps` fetches it)");
        assert_eq!(used(Some("1.2.3"), &[]).to_string(), "psychic model, with musl 1.2.3 beneath (unused)");
        assert_eq!(
            used(Some("1.2.3"), &["getopt_long", "strsep"]).to_string(),
            "psychic model, with musl 1.2.3 for getopt_long, strsep"
        );
    }
}
