//! Lexical pieces of the notation, written with nom: numbers, units, durations (bare,
//! compound such as `1h30m`, `H:MM:SS`), counts and keywords.
//!
//! Owns turning one token into a value. It knows nothing about items, chunks or methods and
//! never builds a [`NotationError`](super::NotationError): callers attach codes and positions.
//! nom types stay inside this module.

use nom::{
    IResult, Parser,
    branch::alt,
    bytes::complete::tag_no_case,
    character::complete::{char, digit1},
    combinator::{all_consuming, map, opt, recognize},
    multi::many1,
};

/// Milliseconds per minute; the default unit of base-time positions.
pub(crate) const MINUTE: u64 = 60_000;
/// Milliseconds per second; the default unit of per-move positions.
pub(crate) const SECOND: u64 = 1_000;
/// Largest duration accepted anywhere (1000 h, [`crate::params::MAX_DURATION_MS`]).
/// Keeps every sum and product the engine forms far away from `u64` overflow.
pub(crate) const MAX_MS: u64 = crate::params::MAX_DURATION_MS;

/// A duration read from a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dur {
    /// Value in milliseconds.
    pub ms: u64,
    /// The token was a plain number without unit (the position's default unit applied).
    pub bare: bool,
}

/// Why a duration token was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DurError {
    /// Not a duration at all.
    Malformed,
    /// Finer than a millisecond (e.g. `0.0001s`).
    SubMs,
    /// Larger than [`MAX_MS`].
    TooLarge,
}

/// A decimal number as written: digits without the point, and how many were after it.
#[derive(Debug, Clone, Copy)]
struct Decimal {
    mantissa: u128,
    frac_digits: u32,
}

type Res<'a, T> = IResult<&'a str, T>;

fn decimal(i: &str) -> Res<'_, Option<Decimal>> {
    map(
        recognize((digit1, opt((char('.'), digit1)))),
        |text: &str| {
            let frac_digits = text.find('.').map_or(0, |p| text.len() - p - 1);
            let digits: String = text.chars().filter(char::is_ascii_digit).collect();
            if digits.len() > 30 {
                return None;
            }
            let mantissa = digits.parse::<u128>().ok()?;
            Some(Decimal {
                mantissa,
                frac_digits: u32::try_from(frac_digits).ok()?,
            })
        },
    )
    .parse(i)
}

fn unit(i: &str) -> Res<'_, u64> {
    alt((
        map(tag_no_case("min"), |_| MINUTE),
        map(tag_no_case("ms"), |_| 1),
        map(tag_no_case("m"), |_| MINUTE),
        map(tag_no_case("h"), |_| 3_600_000),
        map(tag_no_case("sec"), |_| SECOND),
        map(tag_no_case("s"), |_| SECOND),
        map(char('\''), |_| MINUTE),
        map(char('"'), |_| SECOND),
    ))
    .parse(i)
}

/// `value * unit_ms`, exact to the millisecond.
fn scale(d: Decimal, unit_ms: u64) -> Result<u128, DurError> {
    let num = d
        .mantissa
        .checked_mul(u128::from(unit_ms))
        .ok_or(DurError::TooLarge)?;
    let den = 10u128.checked_pow(d.frac_digits).ok_or(DurError::SubMs)?;
    if num % den != 0 {
        return Err(DurError::SubMs);
    }
    Ok(num / den)
}

fn finish(total: u128, bare: bool) -> Result<Dur, DurError> {
    let ms = u64::try_from(total).map_err(|_| DurError::TooLarge)?;
    if ms > MAX_MS {
        return Err(DurError::TooLarge);
    }
    Ok(Dur { ms, bare })
}

fn hms(i: &str) -> Res<'_, (&str, &str, Option<&str>)> {
    all_consuming((
        digit1,
        char(':'),
        digit1,
        opt(map((char(':'), digit1), |(_, s)| s)),
    ))
    .map(|(h, _, m, s)| (h, m, s))
    .parse(i)
}

fn hms_value(h: &str, m: &str, s: Option<&str>) -> Result<Dur, DurError> {
    let two = |t: &str| -> Result<u128, DurError> {
        if t.len() != 2 {
            return Err(DurError::Malformed);
        }
        let v: u128 = t.parse().map_err(|_| DurError::Malformed)?;
        if v >= 60 {
            return Err(DurError::Malformed);
        }
        Ok(v)
    };
    if h.len() > 12 {
        return Err(DurError::TooLarge);
    }
    let hours: u128 = h.parse().map_err(|_| DurError::Malformed)?;
    let minutes = two(m)?;
    let seconds = match s {
        Some(s) => two(s)?,
        None => 0,
    };
    finish(
        hours * 3_600_000 + minutes * 60_000 + seconds * 1_000,
        false,
    )
}

/// Read a whole token as a duration. `default_unit` applies to a bare number; `allow_hms`
/// enables `H:MM[:SS]`.
pub(crate) fn duration(token: &str, default_unit: u64, allow_hms: bool) -> Result<Dur, DurError> {
    if allow_hms && let Ok((_, (h, m, s))) = hms(token) {
        return hms_value(h, m, s);
    }
    if let Ok((_, d)) = all_consuming(decimal).parse(token) {
        let d = d.ok_or(DurError::TooLarge)?;
        return finish(scale(d, default_unit)?, true);
    }
    match all_consuming(many1((decimal, unit))).parse(token) {
        Ok((_, parts)) => {
            let mut total: u128 = 0;
            for (d, u) in parts {
                let d = d.ok_or(DurError::TooLarge)?;
                total = total.checked_add(scale(d, u)?).ok_or(DurError::TooLarge)?;
            }
            finish(total, false)
        }
        Err(_) => Err(DurError::Malformed),
    }
}

/// Read a whole token as a positive count (moves, periods, stones). `None` if it is not a
/// plain integer in `1..=MAX_COUNT` (10 000).
pub(crate) fn count(token: &str) -> Option<u32> {
    let (_, digits) = all_consuming(digit1::<&str, nom::error::Error<&str>>)
        .parse(token)
        .ok()?;
    let n: u32 = digits.parse().ok()?;
    (1..=crate::params::MAX_COUNT).contains(&n).then_some(n)
}

/// Length of the leading run of ASCII digits.
pub(crate) fn leading_digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Match `keyword` case-insensitively at the start of `s`; returns its byte length.
pub(crate) fn keyword(s: &str, keyword: &str) -> Option<usize> {
    tag_no_case::<&str, &str, nom::error::Error<&str>>(keyword)
        .parse(s)
        .ok()
        .map(|_| keyword.len())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ms(token: &str, unit: u64) -> u64 {
        duration(token, unit, true).unwrap().ms
    }

    #[test]
    fn bare_numbers_take_the_default_unit() {
        assert_eq!(ms("30", MINUTE), 1_800_000);
        assert_eq!(ms("30", SECOND), 30_000);
        assert_eq!(ms("1.5", MINUTE), 90_000);
        assert!(duration("30", MINUTE, true).unwrap().bare);
    }

    #[test]
    fn units_and_compounds() {
        assert_eq!(ms("90m", SECOND), 5_400_000);
        assert_eq!(ms("30s", MINUTE), 30_000);
        assert_eq!(ms("1h30m", SECOND), 5_400_000);
        assert_eq!(ms("19m50s", MINUTE), 1_190_000);
        assert_eq!(ms("1h5s", MINUTE), 3_605_000);
        assert_eq!(ms("250ms", MINUTE), 250);
        assert_eq!(ms("2min", SECOND), 120_000);
        assert_eq!(ms("5'", SECOND), 300_000);
        assert_eq!(ms("5\"", MINUTE), 5_000);
        assert!(!duration("2h", MINUTE, true).unwrap().bare);
    }

    #[test]
    fn hours_minutes_seconds() {
        assert_eq!(ms("1:30:00", MINUTE), 5_400_000);
        assert_eq!(ms("0:05", MINUTE), 300_000);
        assert_eq!(duration("1:30", MINUTE, false), Err(DurError::Malformed));
        assert_eq!(duration("1:75", MINUTE, true), Err(DurError::Malformed));
    }

    #[test]
    fn refusals() {
        assert_eq!(duration("", MINUTE, true), Err(DurError::Malformed));
        assert_eq!(duration("x", MINUTE, true), Err(DurError::Malformed));
        assert_eq!(duration("0.0001s", MINUTE, true), Err(DurError::SubMs));
        assert_eq!(
            duration("99999999999999999999999", MINUTE, true),
            Err(DurError::TooLarge)
        );
        assert_eq!(
            duration("400000000h", MINUTE, true),
            Err(DurError::TooLarge)
        );
        assert_eq!(ms("1000h", MINUTE), MAX_MS);
        assert_eq!(duration("60001", MINUTE, true), Err(DurError::TooLarge));
    }

    #[test]
    fn counts_are_positive_integers() {
        assert_eq!(count("40"), Some(40));
        assert_eq!(count("0"), None);
        assert_eq!(count("4x"), None);
        assert_eq!(count("99999999999"), None);
        assert_eq!(count("10000"), Some(10_000));
        assert_eq!(count("10001"), None);
    }
}
