//! Builds the native runtime into a static library that the binary embeds, so an
//! installed `psychic` links replay binaries without its source tree.

fn main() {
    println!("cargo:rerun-if-changed=runtime");
    cc::Build::new()
        .file("runtime/native/psychic_native.c")
        .file("runtime/native/psychic_confirm.c")
        .include("runtime/include")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .flag_if_supported("-fPIC")
        .cargo_metadata(false)
        .compile("psychic_native");
    // The fuzz server is a library of its own: it defines `main`, which only
    // the fuzz build (whose own `main` is renamed) may link.
    cc::Build::new()
        .file("runtime/native/psychic_fuzz.c")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .flag_if_supported("-fPIC")
        .cargo_metadata(false)
        .compile("psychic_fuzz");
    // cargo_metadata(false) keeps the runtime out of psychic's own link; the
    // library is embedded instead (src/runtime.rs).
}
