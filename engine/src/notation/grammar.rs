//! The native grammar (spec §6.1): splits a control into `;`/`,` chunks of items and reads
//! each item (segment, increment/delay, method, option) with its byte position.
//!
//! Owns syntax only. It does not decide what a combination of items means (scoping,
//! method choice, validation): that is `semantics`. Warnings that depend on a single item's
//! spelling (`legacy_hours`, `casual_minutes_over_180`) are raised here, in order.

use super::NotationError;
use super::errors;
use super::lexer::{self, Dur, MINUTE, SECOND};
use crate::params::{Credit, DelayKind, OnFlag, Scheme, Transition};

/// An increment or delay attached to segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Modifier {
    /// Fischer increment in ms.
    Inc(u64),
    /// Delay in ms.
    Delay(u64, DelayKind),
}

/// A period: `n/DUR`, `G/DUR`, `SD/DUR`, casual `3+2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SegmentItem {
    pub moves: Option<u32>,
    pub base_ms: u64,
    /// An increment written on the segment itself (`G/3+2`, `3+2`).
    pub modifier: Option<Modifier>,
}

/// A method item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MethodItem {
    Hourglass(u64),
    Byo {
        periods: u32,
        period_ms: u64,
    },
    Can {
        stones: u32,
        period_ms: u64,
    },
    Df {
        extra_ms: u64,
        bonus_ms: u64,
        scheme: Scheme,
    },
    Rsv(Vec<u64>),
    Pinc {
        inc_ms: u64,
        cutoff: u32,
        final_ms: u64,
    },
    Swing {
        swing_ms: u64,
        cutoff: Option<u32>,
    },
    /// `UP`: count-up.
    Up,
}

impl MethodItem {
    /// The notation keyword, used in error codes (`increment_or_delay_not_supported_with_byo`).
    pub(crate) fn keyword(&self) -> &'static str {
        match self {
            MethodItem::Hourglass(_) => "hg",
            MethodItem::Byo { .. } => "byo",
            MethodItem::Can { .. } => "can",
            MethodItem::Df { .. } => "df",
            MethodItem::Rsv(_) => "rsv",
            MethodItem::Pinc { .. } => "pinc",
            MethodItem::Swing { .. } => "swing",
            MethodItem::Up => "up",
        }
    }
}

/// An option item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OptItem {
    Cap(u64),
    Max(u64),
    Credit(Credit),
    Transition(Transition),
    OnFlag(OnFlag),
    /// `armageddon`: draw odds to Black.
    Armageddon,
}

impl OptItem {
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            OptItem::Cap(_) => "cap",
            OptItem::Max(_) => "max",
            OptItem::Credit(_) => "cr",
            OptItem::Transition(_) => "tr",
            OptItem::OnFlag(_) => "flag",
            OptItem::Armageddon => "armageddon",
        }
    }

    /// How the option is written, for messages: `cap/`, `cr/`, ..., `armageddon`.
    pub(crate) fn spelling(self) -> String {
        match self {
            OptItem::Armageddon => "armageddon".to_owned(),
            o => format!("{}/", o.keyword()),
        }
    }
}

/// One item of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    Segment(SegmentItem),
    Modifier(Modifier),
    Method(MethodItem),
    Opt(OptItem),
}

/// An item with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spanned {
    pub item: Item,
    /// Byte offset in the whole input.
    pub pos: usize,
    /// The item's text, for error details.
    pub text: String,
}

/// A control: chunks separated by `;` or `,`.
pub(crate) type Chunks = Vec<Vec<Spanned>>;

fn is_sep(c: char) -> bool {
    c.is_whitespace() || matches!(c, ';' | ',' | '}' | '{')
}

/// A cursor over the input that reports byte offsets in the whole notation.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
    base: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or("")
    }
    fn pos(&self) -> usize {
        self.base + self.at
    }
    fn skip_spaces(&mut self) {
        let r = self.rest();
        self.at += r.len() - r.trim_start().len();
    }
    /// Take characters up to a separator or one of `stop`.
    fn token(&mut self, stop: &[char]) -> (&'a str, usize) {
        let pos = self.pos();
        let r = self.rest();
        let len = r
            .find(|c: char| is_sep(c) || stop.contains(&c))
            .unwrap_or(r.len());
        self.at += len;
        (&r[..len], pos)
    }
    fn eat(&mut self, c: char) -> bool {
        if self.rest().starts_with(c) {
            self.at += c.len_utf8();
            true
        } else {
            false
        }
    }
}

/// Parse the text of one control (`base` = its offset in the whole input).
pub(crate) fn control(
    text: &str,
    base: usize,
    warnings: &mut Vec<String>,
) -> Result<Chunks, NotationError> {
    let mut cur = Cursor { text, at: 0, base };
    let mut chunks: Chunks = vec![Vec::new()];
    loop {
        cur.skip_spaces();
        let Some(c) = cur.rest().chars().next() else {
            break;
        };
        if c == ';' || c == ',' {
            cur.at += 1;
            chunks.push(Vec::new());
            continue;
        }
        let start = cur.at;
        let item = item(&mut cur, warnings)?;
        let text = text.get(start..cur.at).unwrap_or("").to_string();
        let spanned = Spanned {
            item,
            pos: base + start,
            text,
        };
        if let Some(last) = chunks.last_mut() {
            last.push(spanned);
        }
    }
    chunks.retain(|c| !c.is_empty());
    Ok(chunks)
}

/// Keywords in matching order (longer spellings before their prefixes).
const KEYWORDS: &[&str] = &[
    "game",
    "sd",
    "g",
    "hg",
    "byo",
    "can",
    "df",
    "rsv",
    "pinc",
    "swing",
    "cap",
    "max",
    "cr",
    "t/d",
    "tr",
    "flag",
    "inc",
    "delay",
    "d",
    "bronstein",
    "br",
];

fn item(cur: &mut Cursor<'_>, warnings: &mut Vec<String>) -> Result<Item, NotationError> {
    let start = cur.pos();
    let rest = cur.rest();
    if cur.eat('+') {
        return Ok(Item::Modifier(Modifier::Inc(sec(cur, &[])?)));
    }
    if lexer::leading_digits(rest) > 0 {
        return numeric(cur, warnings);
    }
    // `armageddon` and `UP` are words on their own (no `/` value).
    for (word, item) in [
        ("armageddon", Item::Opt(OptItem::Armageddon)),
        ("up", Item::Method(MethodItem::Up)),
    ] {
        if let Some(len) = lexer::keyword(rest, word)
            && rest[len..].chars().next().is_none_or(is_sep)
        {
            cur.at += len;
            return Ok(item);
        }
    }
    for kw in KEYWORDS {
        let Some(len) = lexer::keyword(rest, kw) else {
            continue;
        };
        let after = &rest[len..];
        let next = after.chars().next();
        let slash = next == Some('/');
        let boundary =
            slash || next.is_some_and(|c| c.is_whitespace() || c.is_ascii_digit() || c == '.');
        if !boundary {
            continue;
        }
        cur.at += len;
        if !cur.eat('/') {
            cur.skip_spaces();
        }
        return keyword_item(kw, cur, start);
    }
    let (tok, pos) = cur.token(&[]);
    let tok = if tok.is_empty() {
        // A stray `{`, `}` or similar: report that character.
        let c = cur
            .rest()
            .chars()
            .next()
            .map(String::from)
            .unwrap_or_default();
        cur.at += c.len();
        c
    } else {
        tok.to_string()
    };
    Err(errors::unknown_item(&tok, pos))
}

fn keyword_item(kw: &str, cur: &mut Cursor<'_>, start: usize) -> Result<Item, NotationError> {
    Ok(match kw {
        "game" | "sd" | "g" => {
            let base = dur(cur, &['+', '|'], true)?;
            Item::Segment(SegmentItem {
                moves: None,
                base_ms: base.ms,
                modifier: inline_inc(cur)?,
            })
        }
        "hg" => Item::Method(MethodItem::Hourglass(dur(cur, &[], true)?.ms)),
        "inc" => Item::Modifier(Modifier::Inc(sec(cur, &[])?)),
        "t/d" | "delay" | "d" => Item::Modifier(Modifier::Delay(sec(cur, &[])?, DelayKind::Us)),
        "bronstein" | "br" => Item::Modifier(Modifier::Delay(sec(cur, &[])?, DelayKind::Bronstein)),
        "cap" => Item::Opt(OptItem::Cap(dur(cur, &[], true)?.ms)),
        "max" => Item::Opt(OptItem::Max(dur(cur, &[], true)?.ms)),
        "cr" | "tr" | "flag" => option_word(kw, cur, start)?,
        _ => method_fields(kw, cur, start)?,
    })
}

fn option_word(kw: &str, cur: &mut Cursor<'_>, start: usize) -> Result<Item, NotationError> {
    let (word, pos) = cur.token(&[]);
    let lower = word.to_ascii_lowercase();
    let opt = match (kw, lower.as_str()) {
        ("cr", "fide") => OptItem::Credit(Credit::Fide),
        ("cr", "after") => OptItem::Credit(Credit::After),
        ("cr", "before") => OptItem::Credit(Credit::Before),
        ("tr", "moves") => OptItem::Transition(Transition::Moves),
        ("tr", "flag") => OptItem::Transition(Transition::Flag),
        ("tr", "flagboth") => OptItem::Transition(Transition::FlagBoth),
        ("flag", "freeze") => OptItem::OnFlag(OnFlag::Freeze),
        ("flag", "continue") => OptItem::OnFlag(OnFlag::Continue),
        _ => return Err(errors::bad_option_value(kw, word, pos.max(start))),
    };
    Ok(Item::Opt(opt))
}

/// Colon-separated method fields: `byo/5x30`, `can/25/5`, `df/60:10:hybrid`, `rsv/60:30`,
/// `pinc/60:40:60`, `swing/30:40`.
fn method_fields(kw: &str, cur: &mut Cursor<'_>, start: usize) -> Result<Item, NotationError> {
    let (tok, pos) = cur.token(&[]);
    let fields = split_fields(tok, pos, if kw == "can" { '/' } else { ':' });
    let field = |i: usize| fields.get(i).copied();
    let need =
        |i: usize, what: &str| field(i).ok_or_else(|| errors::missing_field(kw, what, tok, start));
    let sec_at = |i: usize, what: &str| -> Result<u64, NotationError> {
        let (t, p) = need(i, what)?;
        to_ms(t, p, SECOND, false)
    };
    let dur_at = |i: usize, what: &str| -> Result<u64, NotationError> {
        let (t, p) = need(i, what)?;
        to_ms(t, p, MINUTE, false)
    };
    let count_at = |i: usize, what: &str| -> Result<u32, NotationError> {
        let (t, p) = need(i, what)?;
        lexer::count(t).ok_or_else(|| errors::bad_number(t, p, what))
    };
    let max_fields = match kw {
        "byo" | "can" | "rsv" | "swing" => 2,
        _ => 3,
    };
    if fields.len() > max_fields {
        return Err(errors::extra_field(kw, tok, start));
    }
    let method = match kw {
        "byo" => {
            // byo/PxT: split the single field at the first `x`.
            let (t, p) = need(0, "periods")?;
            if fields.len() > 1 {
                return Err(errors::extra_field(kw, tok, start));
            }
            let Some(x) = t.find(['x', 'X']) else {
                return Err(errors::missing_field(kw, "period length", tok, start));
            };
            let periods =
                lexer::count(&t[..x]).ok_or_else(|| errors::bad_number(&t[..x], p, "periods"))?;
            let period_ms = to_ms(&t[x + 1..], p + x + 1, SECOND, false)?;
            MethodItem::Byo { periods, period_ms }
        }
        "can" => MethodItem::Can {
            stones: count_at(0, "stones")?,
            period_ms: dur_at(1, "period length")?,
        },
        "df" => MethodItem::Df {
            extra_ms: sec_at(0, "extra time")?,
            bonus_ms: sec_at(1, "bonus")?,
            scheme: match field(2) {
                None => Scheme::Hybrid,
                Some((t, p)) => match t.to_ascii_lowercase().as_str() {
                    "hybrid" => Scheme::Hybrid,
                    "linear" => Scheme::Linear,
                    "trunc" | "truncated" => Scheme::Truncated,
                    _ => return Err(errors::bad_option_value("df", t, p)),
                },
            },
        },
        "rsv" => {
            let mut incs = vec![sec_at(0, "reserve increment")?];
            if field(1).is_some() {
                incs.push(sec_at(1, "secondary reserve increment")?);
            }
            MethodItem::Rsv(incs)
        }
        "pinc" => MethodItem::Pinc {
            inc_ms: sec_at(0, "increment")?,
            cutoff: count_at(1, "cut-off moves")?,
            final_ms: dur_at(2, "final increment")?,
        },
        _ => MethodItem::Swing {
            swing_ms: sec_at(0, "swing balance")?,
            cutoff: match field(1) {
                Some(_) => Some(count_at(1, "cut-off moves")?),
                None => None,
            },
        },
    };
    Ok(Item::Method(method))
}

fn split_fields(tok: &str, pos: usize, sep: char) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut off = 0;
    for part in tok.split(sep) {
        out.push((part, pos + off));
        off += part.len() + sep.len_utf8();
    }
    out
}

/// A digit-led item: `n/DUR` (moves/time, with D8) or casual `M+S` / `M|S`.
fn numeric(cur: &mut Cursor<'_>, warnings: &mut Vec<String>) -> Result<Item, NotationError> {
    let (head, pos) = cur.token(&['/', '+', '|']);
    if cur.eat('/') {
        let moves = lexer::count(head).ok_or_else(|| errors::bad_number(head, pos, "moves"))?;
        let d = dur(cur, &['+', '|'], true)?;
        let mut base_ms = d.ms;
        let legacy_minutes = d.ms / MINUTE;
        if d.bare
            && d.ms.is_multiple_of(MINUTE)
            && legacy_minutes.saturating_mul(6) < u64::from(moves)
        {
            base_ms = legacy_minutes.saturating_mul(3_600_000);
            let text = format!("{moves}/{legacy_minutes}");
            warnings.push(errors::legacy_hours_warning(&text, legacy_minutes));
        }
        return Ok(Item::Segment(SegmentItem {
            moves: Some(moves),
            base_ms,
            modifier: inline_inc(cur)?,
        }));
    }
    let base = match lexer::duration(head, MINUTE, false) {
        Ok(d) => d,
        Err(e) => return Err(errors::duration(e, head, pos)),
    };
    if !(cur.rest().starts_with('+') || cur.rest().starts_with('|')) {
        return Err(errors::lone_number(head, pos));
    }
    let head_start = cur.at - head.len();
    cur.at += 1;
    let inc = sec(cur, &[])?;
    if base.bare && base.ms > 180 * MINUTE {
        let text = cur.text.get(head_start..cur.at).unwrap_or(head);
        warnings.push(errors::casual_warning(text));
    }
    Ok(Item::Segment(SegmentItem {
        moves: None,
        base_ms: base.ms,
        modifier: Some(Modifier::Inc(inc)),
    }))
}

fn inline_inc(cur: &mut Cursor<'_>) -> Result<Option<Modifier>, NotationError> {
    if cur.rest().starts_with('+') {
        cur.at += 1;
        return Ok(Some(Modifier::Inc(sec(cur, &[])?)));
    }
    Ok(None)
}

fn to_ms(tok: &str, pos: usize, unit: u64, hms: bool) -> Result<u64, NotationError> {
    lexer::duration(tok, unit, hms)
        .map(|d| d.ms)
        .map_err(|e| errors::duration(e, tok, pos))
}

fn dur(cur: &mut Cursor<'_>, stop: &[char], hms: bool) -> Result<Dur, NotationError> {
    let (tok, pos) = cur.token(stop);
    lexer::duration(tok, MINUTE, hms).map_err(|e| errors::duration(e, tok, pos))
}

fn sec(cur: &mut Cursor<'_>, stop: &[char]) -> Result<u64, NotationError> {
    let (tok, pos) = cur.token(stop);
    to_ms(tok, pos, SECOND, false)
}
