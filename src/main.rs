fn main() -> std::process::ExitCode {
    psychic::cli::main()
}
