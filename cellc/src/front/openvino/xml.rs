//! The XML layer of IR: `<net>`, its `<layers>` with `<data>` attributes and ports, and its
//! `<edges>`. Everything else (`rt_info`, metadata) is skipped. Only syntax is checked here.
use crate::diag::{Diag, LineIndex, Pos};
use crate::vocab::Dim;
use quick_xml::Reader;
use quick_xml::XmlVersion;
use quick_xml::events::{BytesStart, Event};

/// A port of a layer.
#[derive(Debug, Default)]
pub(super) struct Port {
    pub(super) id: u64,
    pub(super) pos: Option<Pos>,
    pub(super) dims: Vec<Dim>,
    pub(super) precision: Option<String>,
    pub(super) names: Option<String>,
}

/// A `<layer>`.
#[derive(Debug, Default)]
pub(super) struct Layer {
    pub(super) id: u64,
    pub(super) name: String,
    pub(super) op: String,
    /// The `version` attribute (the opset the op's version comes from).
    pub(super) version: Option<String>,
    pub(super) version_pos: Option<Pos>,
    pub(super) pos: Option<Pos>,
    pub(super) data: Vec<(String, String)>,
    pub(super) data_pos: Option<Pos>,
    /// Where each `<data>` attribute is written.
    pub(super) data_attr_pos: Vec<(String, Pos)>,
    pub(super) inputs: Vec<Port>,
    pub(super) outputs: Vec<Port>,
    /// The graphs inside the layer (an `If`'s `then_body` and `else_body`, a loop's `body`),
    /// by element name.
    pub(super) bodies: Vec<(String, Net)>,
    /// How the layer's ports map to its bodies' Parameters and Results, by port map
    /// element name (`then_port_map`, …).
    pub(super) port_maps: Vec<(String, Vec<PortMap>)>,
    /// The `<data>` keys the op's reader asked for ([`Layer::attr`]), written or not: the
    /// attributes it implements; any other written is refused ([`Layer::unread`]).
    pub(super) read: std::cell::RefCell<Vec<String>>,
}

/// An `<input>` or `<output>` of a port map: an outer port and the body layer it is.
#[derive(Debug)]
pub(super) struct PortMap {
    pub(super) input: bool,
    pub(super) external_port: u64,
    pub(super) internal_layer: u64,
    pub(super) pos: Option<Pos>,
}

impl Layer {
    /// Records `key` as read (see [`Layer::read`]).
    pub(super) fn attr(&self, key: &str) -> Option<&str> {
        let mut read = self.read.borrow_mut();
        if !read.iter().any(|k| k == key) {
            read.push(key.to_owned());
        }
        self.data.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// The `<data>` keys written that the reader did not ask for, in the order written.
    pub(super) fn unread(&self) -> Vec<&str> {
        let read = self.read.borrow();
        self.data.iter().map(|(k, _)| k.as_str()).filter(|k| !read.iter().any(|r| r == k)).collect()
    }

    /// Where a `<data>` attribute is written, else where `<data>` (or the layer) starts.
    pub(super) fn attr_pos(&self, key: &str) -> Option<Pos> {
        self.data_attr_pos.iter().find(|(k, _)| k == key).map(|(_, p)| *p).or(self.data_pos).or(self.pos)
    }
}

/// An `<edge>`.
#[derive(Debug)]
pub(super) struct Edge {
    pub(super) from: (u64, u64),
    pub(super) to: (u64, u64),
    pub(super) pos: Option<Pos>,
}

/// A `<net>`.
#[derive(Debug, Default)]
pub(super) struct Net {
    pub(super) name: String,
    pub(super) layers: Vec<Layer>,
    pub(super) edges: Vec<Edge>,
}

#[derive(Clone, Copy, PartialEq)]
enum PortSide {
    Input,
    Output,
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    lines: LineIndex,
    diags: Vec<Diag>,
}

impl Parser<'_> {
    fn pos(&self, offset: u64) -> Pos {
        self.lines.pos(self.text, offset as usize)
    }

    /// Position of attribute `key` in the element starting at byte `start`.
    fn attr_pos(&self, start: u64, key: &str) -> Option<Pos> {
        let tag = &self.text[start as usize..];
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let at = tag.match_indices(key).map(|(i, _)| i).find(|&i| {
            let before = tag[..i].chars().next_back().is_some_and(char::is_whitespace);
            let after = tag[i + key.len()..].trim_start().starts_with('=');
            before && after
        })?;
        Some(self.pos(start + at as u64))
    }

    fn err(&mut self, pos: Pos, msg: impl Into<crate::diag::Message>) {
        self.diags.push(Diag::new(crate::diag::Code::Malformed, self.file, Some(pos), msg));
    }

    /// Attributes of an element as (key, unescaped value) pairs.
    fn attrs(&mut self, e: &BytesStart<'_>, pos: Pos) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for a in e.attributes() {
            match a {
                Ok(a) => {
                    let key = AsRef::<str>::as_ref(&a.key).to_owned();
                    match a.normalized_value(XmlVersion::Implicit1_0) {
                        Ok(v) => out.push((key, v.into_owned())),
                        Err(err) => self.err(pos, format!("attribute `{key}`: {err}")),
                    }
                }
                Err(err) => self.err(pos, format!("malformed attribute: {err}")),
            }
        }
        out
    }

    fn int_attr(&mut self, attrs: &[(String, String)], key: &str, elem: &str, pos: Pos) -> u64 {
        match attrs.iter().find(|(k, _)| k == key) {
            Some((_, v)) => match v.trim().parse::<u64>() {
                Ok(n) => n,
                Err(_) => {
                    self.err(pos, format!("<{elem}> attribute `{key}` is {v:?}; expected a non-negative integer"));
                    0
                }
            },
            None => {
                self.err(pos, format!("<{elem}> has no `{key}` attribute"));
                0
            }
        }
    }
}

fn str_attr(attrs: &[(String, String)], key: &str) -> Option<String> {
    attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
}

/// The elements of a layer that hold a graph of their own.
const BODIES: [&str; 3] = ["then_body", "else_body", "body"];

/// The elements of a layer that map its ports to its bodies' Parameters and Results.
const PORT_MAPS: [&str; 3] = ["then_port_map", "else_port_map", "port_map"];

// How deep bodies may nest (an `If` inside an `If` …): a deeper model is refused, so no walk
// over them (dropping them included) goes deeper than `MAX_BODY_DEPTH`.
use crate::limits::MAX_BODY_DEPTH;

/// Parses a dimension: a non-negative integer, `-1` / `?` for a dynamic one, or an
/// interval as OpenVINO writes it (`1..`, `2..10`, `..8`; `3..3` is 3).
pub(super) fn parse_dim(s: &str) -> Option<Dim> {
    let s = s.trim();
    if s == "?" || s == "-1" {
        return Some(Dim::Dynamic);
    }
    if let Some((lo, hi)) = s.split_once("..") {
        let min = if lo.is_empty() { 0 } else { lo.parse::<u64>().ok()? };
        let max = if hi.is_empty() { None } else { Some(hi.parse::<u64>().ok()?) };
        return match max {
            Some(m) if m < min => None,
            Some(m) if m == min => Some(Dim::Static(m)),
            _ if min == 0 && max.is_none() => Some(Dim::Dynamic),
            _ => Some(Dim::Interval { min, max }),
        };
    }
    s.parse::<u64>().ok().map(Dim::Static)
}

/// Parses the XML text of an IR model into its layers and edges.
pub(super) fn parse(file: &str, text: &str) -> Result<Net, Vec<Diag>> {
    let mut p = Parser { file, text, lines: LineIndex::new(text), diags: Vec::new() };
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    // The graph being read: the net's, or the body of a layer inside it (innermost last).
    let mut nets = vec![Net::default()];
    let mut seen_net = false;
    // Path of open elements, by local name.
    let mut stack: Vec<String> = Vec::new();
    let mut side = PortSide::Input;
    let mut in_dim = false;
    loop {
        let start = reader.buffer_position();
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                let pos = p.pos(reader.error_position());
                p.err(pos, format!("malformed XML: {e}"));
                return Err(p.diags);
            }
        };
        let pos = p.pos(start);
        match ev {
            Event::Eof => break,
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let name = AsRef::<str>::as_ref(&e.local_name()).to_owned();
                let parent = stack.last().map(String::as_str);
                match (parent, name.as_str()) {
                    (None, "net") => {
                        seen_net = true;
                        let attrs = p.attrs(e, pos);
                        if let Some(net) = nets.last_mut() {
                            net.name = str_attr(&attrs, "name").unwrap_or_default();
                        }
                        match str_attr(&attrs, "version").as_deref().map(str::trim) {
                            Some("10" | "11") => {}
                            Some(v) => p.err(pos, format!("IR version {v:?} is not supported; expected 10 or 11")),
                            None => p.err(pos, "<net> has no `version` attribute; expected 10 or 11"),
                        }
                    }
                    (None, other) => {
                        p.err(pos, format!("the root element is <{other}>; expected <net> (an OpenVINO IR model)"));
                        return Err(p.diags);
                    }
                    (Some("layers"), "layer") => {
                        let attrs = p.attrs(e, pos);
                        let id = p.int_attr(&attrs, "id", "layer", pos);
                        let op = str_attr(&attrs, "type").unwrap_or_default();
                        if op.is_empty() {
                            p.err(pos, "<layer> has no `type` attribute");
                        }
                        let name = str_attr(&attrs, "name").unwrap_or_default();
                        let version = str_attr(&attrs, "version");
                        let version_pos = p.attr_pos(start, "version");
                        if let Some(net) = nets.last_mut() {
                            let l = Layer { id, name, op, version, version_pos, pos: Some(pos), ..Layer::default() };
                            net.layers.push(l);
                        }
                    }
                    (Some("layer"), "data") => {
                        let attrs = p.attrs(e, pos);
                        let positions =
                            attrs.iter().filter_map(|(k, _)| Some((k.clone(), p.attr_pos(start, k)?))).collect();
                        if let Some(l) = nets.last_mut().and_then(|n| n.layers.last_mut()) {
                            l.data = attrs;
                            l.data_pos = Some(pos);
                            l.data_attr_pos = positions;
                        }
                    }
                    (Some("layer"), "input") => side = PortSide::Input,
                    (Some("layer"), "output") => side = PortSide::Output,
                    (Some("input" | "output"), "port") if stack.len() >= 2 && stack[stack.len() - 2] == "layer" => {
                        let attrs = p.attrs(e, pos);
                        let port = Port {
                            id: p.int_attr(&attrs, "id", "port", pos),
                            pos: Some(pos),
                            dims: Vec::new(),
                            precision: str_attr(&attrs, "precision"),
                            names: str_attr(&attrs, "names"),
                        };
                        if let Some(l) = nets.last_mut().and_then(|n| n.layers.last_mut()) {
                            match side {
                                PortSide::Input => l.inputs.push(port),
                                PortSide::Output => l.outputs.push(port),
                            }
                        }
                    }
                    (Some("port"), "dim") => in_dim = !empty,
                    (Some("edges"), "edge") => {
                        let attrs = p.attrs(e, pos);
                        let from = (
                            p.int_attr(&attrs, "from-layer", "edge", pos),
                            p.int_attr(&attrs, "from-port", "edge", pos),
                        );
                        let to =
                            (p.int_attr(&attrs, "to-layer", "edge", pos), p.int_attr(&attrs, "to-port", "edge", pos));
                        if let Some(net) = nets.last_mut() {
                            net.edges.push(Edge { from, to, pos: Some(pos) });
                        }
                    }
                    (Some("layer"), map) if PORT_MAPS.contains(&map) => {
                        if let Some(l) = nets.last_mut().and_then(|n| n.layers.last_mut()) {
                            l.port_maps.push((map.to_owned(), Vec::new()));
                        }
                    }
                    (Some(map), side @ ("input" | "output"))
                        if PORT_MAPS.contains(&map) && stack.len() >= 2 && stack[stack.len() - 2] == "layer" =>
                    {
                        let attrs = p.attrs(e, pos);
                        let entry = PortMap {
                            input: side == "input",
                            external_port: p.int_attr(&attrs, "external_port_id", side, pos),
                            internal_layer: p.int_attr(&attrs, "internal_layer_id", side, pos),
                            pos: Some(pos),
                        };
                        if let Some((_, m)) =
                            nets.last_mut().and_then(|n| n.layers.last_mut()).and_then(|l| l.port_maps.last_mut())
                        {
                            m.push(entry);
                        }
                    }
                    (Some("layer"), body) if BODIES.contains(&body) && !empty => {
                        if nets.len() > MAX_BODY_DEPTH {
                            p.err(pos, format!("<{body}> nested more than {MAX_BODY_DEPTH} deep; cellc reads bodies up to that depth"));
                            return Err(p.diags);
                        }
                        nets.push(Net::default());
                    }
                    _ => {}
                }
                if !empty {
                    stack.push(name);
                }
            }
            Event::End(_) => {
                in_dim = false;
                let closed = stack.pop();
                let in_layer = stack.last().is_some_and(|p| p == "layer");
                if let Some(body) = closed.filter(|c| in_layer && BODIES.contains(&c.as_str()))
                    && nets.len() > 1
                    && let Some(inner) = nets.pop()
                    && let Some(layer) = nets.last_mut().and_then(|n| n.layers.last_mut())
                {
                    layer.bodies.push((body, inner));
                }
            }
            Event::Text(t) if in_dim => {
                let s = AsRef::<str>::as_ref(&t).to_owned();
                let dim = parse_dim(&s);
                let port = nets.last_mut().and_then(|n| n.layers.last_mut()).and_then(|l| match side {
                    PortSide::Input => l.inputs.last_mut(),
                    PortSide::Output => l.outputs.last_mut(),
                });
                match (dim, port) {
                    (Some(d), Some(port)) => port.dims.push(d),
                    (None, _) => p.err(pos, format!("<dim> holds {:?}; expected a size, `-1` or `?`", s.trim())),
                    (Some(_), None) => {}
                }
            }
            _ => {}
        }
    }
    if !seen_net {
        p.err(Pos::at(1, 1), "no <net> element: this is not an OpenVINO IR model");
    }
    let net = nets.swap_remove(0);
    if p.diags.is_empty() { Ok(net) } else { Err(p.diags) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dimensions_read_as_openvino_writes_them() {
        assert_eq!(parse_dim("16"), Some(Dim::Static(16)));
        assert_eq!(parse_dim(" -1 "), Some(Dim::Dynamic));
        assert_eq!(parse_dim("?"), Some(Dim::Dynamic));
        assert_eq!(parse_dim("1.."), Some(Dim::Interval { min: 1, max: None }));
        assert_eq!(parse_dim("2..10"), Some(Dim::Interval { min: 2, max: Some(10) }));
        assert_eq!(parse_dim("..8"), Some(Dim::Interval { min: 0, max: Some(8) }));
        assert_eq!(parse_dim("0.."), Some(Dim::Dynamic));
        assert_eq!(parse_dim("3..3"), Some(Dim::Static(3)));
        for bad in ["5..2", "1...", "a..3", "-2", "1..2..3"] {
            assert_eq!(parse_dim(bad), None, "{bad}");
        }
    }
}
