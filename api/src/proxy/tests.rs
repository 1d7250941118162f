//! The proxies against the committed introspection XML (dbus/*.xml): every method, signal
//! and property with its arguments, types and change signalling, both ways. The proxies'
//! source is read as text (a proxy cannot introspect itself without a bus); the XML with a
//! small reader of the few tags introspection uses.

use std::collections::BTreeMap;

/// One interface's members as `kind name` → what identifies it (`arg:type ...`).
type Members = BTreeMap<String, String>;

const PROXY_SOURCE: &str = include_str!("../proxy.rs");
const XML: [&str; 2] = [
    include_str!("../../../dbus/org.chessclockd.ChessClock1.Manager.xml"),
    include_str!("../../../dbus/org.chessclockd.ChessClock1.Clock.xml"),
];

/// A start or empty tag: its name and attributes.
#[derive(Debug)]
struct Tag {
    name: String,
    attrs: BTreeMap<String, String>,
    /// `</name>`.
    close: bool,
    /// `<name ... />`.
    empty: bool,
}

/// The tags of `xml`, comments and declarations left out.
fn tags(xml: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find('<') {
        rest = &rest[start..];
        if let Some(after) = rest.strip_prefix("<!--") {
            let end = after.find("-->").expect("comment closed");
            rest = &after[end + 3..];
            continue;
        }
        let end = rest.find('>').expect("tag closed");
        let body = &rest[1..end];
        rest = &rest[end + 1..];
        if body.starts_with('!') || body.starts_with('?') {
            continue;
        }
        let close = body.starts_with('/');
        let empty = body.ends_with('/');
        let body = body.trim_start_matches('/').trim_end_matches('/');
        let name = body
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .to_owned();
        let mut attrs = BTreeMap::new();
        let mut a = &body[name.len()..];
        while let Some(eq) = a.find("=\"") {
            let key = a[..eq].trim().to_owned();
            let value_end = a[eq + 2..].find('"').expect("attribute closed");
            attrs.insert(key, a[eq + 2..eq + 2 + value_end].to_owned());
            a = &a[eq + 2 + value_end + 1..];
        }
        out.push(Tag {
            name,
            attrs,
            close,
            empty,
        });
    }
    out
}

/// The members of every interface in `xml`.
fn xml_members(xml: &str) -> BTreeMap<String, Members> {
    let mut out: BTreeMap<String, Members> = BTreeMap::new();
    let mut iface = String::new();
    // The member being read: kind, name, in-args, out-args, emits.
    let mut member: Option<(String, String, Vec<String>, String, String)> = None;
    let attr = |t: &Tag, k: &str| t.attrs.get(k).cloned().unwrap_or_default();
    let mut finish = |iface: &str, m: (String, String, Vec<String>, String, String)| {
        let (kind, name, ins, outs, emits) = m;
        let what = match kind.as_str() {
            "property" => format!("{outs} emits={emits}"),
            _ => format!("({}) -> {outs}", ins.join(", ")),
        };
        out.entry(iface.to_owned())
            .or_default()
            .insert(format!("{kind} {name}"), what);
    };
    for t in tags(xml) {
        match (t.name.as_str(), t.close) {
            ("interface", false) => iface = attr(&t, "name"),
            ("method" | "signal" | "property", false) => {
                let mut m = (
                    t.name.clone(),
                    attr(&t, "name"),
                    Vec::new(),
                    String::new(),
                    "true".into(),
                );
                if t.name == "property" {
                    m.3 = attr(&t, "type");
                }
                if t.empty {
                    finish(&iface, m);
                } else {
                    member = Some(m);
                }
            }
            ("method" | "signal" | "property", true) => {
                if let Some(m) = member.take() {
                    finish(&iface, m);
                }
            }
            ("arg", false) => {
                let m = member.as_mut().expect("arg inside a member");
                if attr(&t, "direction") == "out" {
                    m.3.push_str(&attr(&t, "type"));
                } else {
                    m.2.push(format!("{}:{}", attr(&t, "name"), attr(&t, "type")));
                }
            }
            ("annotation", false)
                if attr(&t, "name") == "org.freedesktop.DBus.Property.EmitsChangedSignal" =>
            {
                if let Some(m) = member.as_mut() {
                    m.4 = attr(&t, "value");
                }
            }
            _ => {}
        }
    }
    out
}

/// The D-Bus signature of a Rust type as the proxies write it.
fn signature(ty: &str) -> String {
    let ty = ty.trim().trim_start_matches('&');
    let ty = ty.strip_prefix("std::collections::").unwrap_or(ty);
    let generic = |prefix: &str| {
        ty.strip_prefix(prefix)
            .and_then(|r| r.strip_suffix('>'))
            .map(split_top)
    };
    if let Some(args) = generic("Vec<") {
        return format!("a{}", signature(&args[0]));
    }
    if let Some(args) = generic("HashMap<").or_else(|| generic("BTreeMap<")) {
        return format!("a{{{}{}}}", signature(&args[0]), signature(&args[1]));
    }
    if let Some(inner) = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')'))
        && !inner.is_empty()
    {
        let fields: String = split_top(inner).iter().map(|f| signature(f)).collect();
        return format!("({fields})");
    }
    match ty {
        "str" | "String" => "s",
        "bool" => "b",
        "u32" => "u",
        "u64" => "t",
        "i64" => "x",
        "i32" => "i",
        "()" => "",
        "OwnedVariant" => "v",
        "OwnedObjectPath" | "zbus::ObjectPath<'_>" => "o",
        other => panic!("no signature known for the Rust type {other}: add it here"),
    }
    .into()
}

/// `a, b<c, d>, e` split at the top level.
fn split_top(s: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in s.chars() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut cur).trim().to_owned());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        parts.push(cur.trim().to_owned());
    }
    parts
}

fn pascal(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The members of every proxy trait in the source of `proxy.rs`.
fn proxy_members(src: &str) -> BTreeMap<String, Members> {
    let mut out: BTreeMap<String, Members> = BTreeMap::new();
    let mut iface = String::new();
    let mut attrs = String::new();
    let mut item = String::new();
    for line in src.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("interface = \"") {
            iface = rest.split('"').next().unwrap_or_default().to_owned();
        } else if line.starts_with("#[zbus(") {
            attrs.push_str(line);
        } else if line.starts_with("fn ") || !item.is_empty() {
            item.push_str(line);
            item.push(' ');
            if !line.ends_with(';') {
                continue;
            }
            let open = item.find('(').expect("fn args");
            let name = item[3..open].trim().trim_start_matches("r#");
            let close = item.rfind(") ->").expect("fn return");
            let args: Vec<String> = split_top(&item[open + 1..close])
                .into_iter()
                .filter(|a| a != "&self")
                .map(|a| {
                    let (n, t) = a.split_once(':').expect("name: type");
                    format!("{}:{}", n.trim().trim_start_matches("r#"), signature(t))
                })
                .collect();
            let ret = item[close + 4..]
                .trim()
                .trim_end_matches(';')
                .trim()
                .strip_prefix("zbus::Result<")
                .and_then(|r| r.strip_suffix('>'))
                .expect("zbus::Result");
            let (kind, what) = if attrs.contains("property") {
                let emits = attrs
                    .split("emits_changed_signal = \"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .unwrap_or("true");
                ("property", format!("{} emits={emits}", signature(ret)))
            } else if attrs.contains("signal") {
                ("signal", format!("({}) -> ", args.join(", ")))
            } else {
                (
                    "method",
                    format!("({}) -> {}", args.join(", "), signature(ret)),
                )
            };
            out.entry(iface.clone())
                .or_default()
                .insert(format!("{kind} {}", pascal(name)), what);
            attrs.clear();
            item.clear();
        }
    }
    out
}

#[test]
fn the_reader_sees_members_args_and_annotations() {
    let xml = r#"<node><!-- <method name="Commented"/> -->
        <interface name="a.B">
          <method name="Get"><arg name="k" type="s" direction="in"/><arg type="a{sv}" direction="out"/></method>
          <signal name="Done"><arg name="n" type="u"/></signal>
          <property name="P" type="as" access="read"><annotation name="org.freedesktop.DBus.Property.EmitsChangedSignal" value="const"/></property>
          <property name="Q" type="b" access="read"/>
        </interface></node>"#;
    let m = &xml_members(xml)["a.B"];
    assert_eq!(m["method Get"], "(k:s) -> a{sv}");
    assert_eq!(m["signal Done"], "(n:u) -> ");
    assert_eq!(m["property P"], "as emits=const");
    assert_eq!(m["property Q"], "b emits=true");
    assert_eq!(m.len(), 4, "{m:?}");
    assert_eq!(
        signature("HashMap<OwnedObjectPath, HashMap<String, OwnedVariant>>"),
        "a{oa{sv}}"
    );
}

#[test]
fn the_proxies_match_the_introspection_xml() {
    let proxies = proxy_members(PROXY_SOURCE);
    for xml in XML {
        for (iface, want) in xml_members(xml) {
            let mut got = proxies.get(&iface).cloned().unwrap_or_default();
            // The published fields are served from the model's table, not written in the
            // proxy: clients read them with `GetAll` into `ClockStatus`.
            if iface == crate::names::CLOCK_INTERFACE {
                for p in crate::PublishedClock::PROPERTIES {
                    let emits = if p.constant { "const" } else { "true" };
                    got.insert(
                        format!("property {}", p.name),
                        format!("{} emits={emits}", p.signature),
                    );
                }
            }
            let missing: Vec<_> = want
                .iter()
                .filter(|(k, v)| got.get(*k) != Some(v))
                .map(|(k, v)| format!("{k}: XML {v}, proxy {:?}", got.get(k)))
                .collect();
            let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
            assert!(
                missing.is_empty() && extra.is_empty(),
                "{iface}: the proxy differs from dbus/{iface}.xml:\n{}\nnot in the XML: {extra:?}",
                missing.join("\n")
            );
        }
    }
    assert_eq!(proxies.len(), 2, "two proxies: {:?}", proxies.keys());
}
