//! PGN rendering of a finished game's clock record (placeholder; see below).
