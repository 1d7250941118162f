//! Time-control notation: parser (native grammar, US Chess forms, PGN behind `pgn:`, per-side
//! `W{..} B{..}`), canonical printer and plain-English explanation, per `docs/timecontrols.md`.
//!
//! Owns text <-> [`TimeControl`] only. It must not do IO or know about the engine's state.
//! Roles: `lexer` (numbers, units, durations; nom), `grammar` (items and chunks), `semantics`
//! (scoping, methods, validation), `sided` (`W{..} B{..}`), `pgn`, `printer`, `explain`,
//! `summary` (one line, and the hint for a likely slip), `errors` (codes and wording).

mod errors;
mod explain;
mod grammar;
mod lexer;
mod methods;
mod pgn;
mod pgn_tag;
mod printer;
mod semantics;
mod sided;
mod summary;

pub use explain::explain;
pub use pgn::Sandclock;
pub use pgn_tag::pgn_time_control;
pub use printer::canonical;
pub use summary::{likely_slip, summary};

use super::params::{Method, TimeControl};

/// A successfully parsed notation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// The control in its JSON form.
    pub control: TimeControl,
    /// The canonical printing of `control` (parses back to the same control).
    pub canonical: String,
    /// Warnings, each starting with its code (e.g. `legacy_hours:40/2`), in the order found.
    pub warnings: Vec<String>,
}

/// Why a notation was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code} (at byte {position}): {message}")]
pub struct NotationError {
    /// The error code of the spec, with optional detail after a `:` (e.g. `bad_duration:9x`).
    pub code: String,
    /// Byte offset in the input where the problem is.
    pub position: usize,
    /// A sentence a person can act on.
    pub message: String,
}

impl NotationError {
    /// The code without its detail (the part before the first `:`).
    pub fn kind(&self) -> &str {
        self.code.split(':').next().unwrap_or(&self.code)
    }
}

impl Parsed {
    /// The canonical form as the vectors and the JSON outputs give it: `None` for PGN `?`
    /// and `-` (methods `unknown` and `none`, which configure no clock and have no native
    /// form; spec §1.2 vectors give `"canonical": null`). [`Parsed::canonical`] still holds
    /// `pgn:?` / `pgn:-` for displays that need some text.
    pub fn canonical_json(&self) -> Option<&str> {
        match self.control.method {
            Method::Unknown | Method::None => None,
            _ => Some(&self.canonical),
        }
    }
}

/// Parser settings that the notation itself cannot express.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParseOptions {
    /// How PGN `*N` is read (spec D5, option `pgn_sandclock`).
    pub pgn_sandclock: Sandclock,
}

/// Parse a time-control notation with the default settings.
pub fn parse(input: &str) -> Result<Parsed, NotationError> {
    parse_with(input, ParseOptions::default())
}

/// Parse a time-control notation.
pub fn parse_with(input: &str, options: ParseOptions) -> Result<Parsed, NotationError> {
    let mut warnings = Vec::new();
    let lead = input.len() - input.trim_start().len();
    let trimmed = input.trim_start();
    let is_pgn = trimmed
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("pgn:"));
    let control = if is_pgn {
        let body = trimmed.get(4..).unwrap_or("");
        pgn::parse(body, lead + 4, options.pgn_sandclock, &mut warnings)?
    } else if sided::is_sided(input) {
        sided::parse(input, &mut warnings)?
    } else {
        let chunks = grammar::control(input, 0, &mut warnings)?;
        let built = semantics::build(&chunks, input.len(), true)?;
        let m = built.control.method;
        if m.is_segment_based() && m != Method::PhasedIncrement && !built.named_modifier {
            warnings.push(errors::no_modifier_warning(None));
        }
        built.control
    };
    let canonical = canonical(&control);
    Ok(Parsed {
        control,
        canonical,
        warnings,
    })
}
