//! A daemon's manual page, section 8, from its command-line definition: what `--man` prints
//! for packaging (chessclockd(8), chessclock-bridge(8)). Owns the rendering only; each
//! binary owns its options and their help.

use std::io::Write;
use std::process::ExitCode;

/// Render `cmd` as a section-8 manual page (roff) to `out`.
pub fn render(cmd: clap::Command, out: &mut impl Write) -> std::io::Result<()> {
    clap_mangen::Man::new(cmd).section("8").render(out)
}

/// `--man`: the page to stdout; a failure to write is said in one line, naming `program`.
pub fn print(program: &str, cmd: clap::Command) -> ExitCode {
    match render(cmd, &mut std::io::stdout()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: cannot write the manual page: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_command_becomes_a_section_8_page_with_its_options() {
        let cmd = clap::Command::new("exampled").about("Runs an example").arg(
            clap::Arg::new("config")
                .long("config")
                .help("The configuration file"),
        );
        let mut page = Vec::new();
        super::render(cmd, &mut page).expect("rendered");
        let page = String::from_utf8(page).expect("UTF-8");
        assert!(page.contains(".TH exampled 8"), "{page}");
        assert!(page.contains("The configuration file"), "{page}");
    }
}
