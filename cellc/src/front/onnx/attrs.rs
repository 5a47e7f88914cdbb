//! An ONNX node's attributes, read by name and type. Every attribute a reader asks for is
//! recorded, so that the ones it did not ask for (which cellc would otherwise ignore) are
//! refused by name; an attribute of the wrong type is reported, not read as its default.
use super::proto::attribute_proto::AttributeType;
use super::proto::{AttributeProto, GraphProto, NodeProto, TensorProto};

/// The attributes of one node, with what has been read of them and the problems found.
pub(super) struct NodeAttrs<'a> {
    node: &'a NodeProto,
    read: Vec<bool>,
    /// Problems found, in words naming the attribute.
    pub(super) errors: Vec<String>,
}

impl<'a> NodeAttrs<'a> {
    pub(super) fn new(node: &'a NodeProto) -> Self {
        NodeAttrs { node, read: vec![false; node.attribute.len()], errors: Vec::new() }
    }

    /// The attribute `key` if the node has it as type `want` (recorded as read either way).
    fn find(&mut self, key: &str, want: AttributeType) -> Option<&'a AttributeProto> {
        let k = self.node.attribute.iter().position(|a| a.name.as_deref() == Some(key))?;
        self.read[k] = true;
        let a = &self.node.attribute[k];
        let found = a.r#type.and_then(|t| AttributeType::try_from(t).ok()).unwrap_or(AttributeType::Undefined);
        if found != want {
            self.errors.push(format!(
                "attribute `{key}` is of type {}; expected {}",
                found.as_str_name(),
                want.as_str_name()
            ));
            return None;
        }
        Some(a)
    }

    /// Whether the node has attribute `key` (recorded as read).
    pub(super) fn has(&mut self, key: &str) -> bool {
        match self.node.attribute.iter().position(|a| a.name.as_deref() == Some(key)) {
            Some(k) => {
                self.read[k] = true;
                true
            }
            None => false,
        }
    }

    /// An `INT` attribute.
    pub(super) fn int(&mut self, key: &str) -> Option<i64> {
        self.find(key, AttributeType::Int).map(|a| a.i.unwrap_or(0))
    }

    /// A `FLOAT` attribute.
    pub(super) fn float(&mut self, key: &str) -> Option<f32> {
        self.find(key, AttributeType::Float).map(|a| a.f.unwrap_or(0.0))
    }

    /// A `STRING` attribute (bytes that are not UTF-8 reported).
    pub(super) fn string(&mut self, key: &str) -> Option<String> {
        let a = self.find(key, AttributeType::String)?;
        let s = a.s.as_deref().unwrap_or_default();
        match std::str::from_utf8(s) {
            Ok(s) => Some(s.to_owned()),
            Err(_) => {
                self.errors.push(format!("attribute `{key}` is not UTF-8 text"));
                None
            }
        }
    }

    /// An `INTS` attribute.
    pub(super) fn ints(&mut self, key: &str) -> Option<Vec<i64>> {
        self.find(key, AttributeType::Ints).map(|a| a.ints.clone())
    }

    /// A `FLOATS` attribute.
    pub(super) fn floats(&mut self, key: &str) -> Option<Vec<f32>> {
        self.find(key, AttributeType::Floats).map(|a| a.floats.clone())
    }

    /// A `STRINGS` attribute.
    pub(super) fn strings(&mut self, key: &str) -> Option<Vec<String>> {
        let a = self.find(key, AttributeType::Strings)?;
        let mut out = Vec::new();
        for s in &a.strings {
            match std::str::from_utf8(s) {
                Ok(s) => out.push(s.to_owned()),
                Err(_) => {
                    self.errors.push(format!("attribute `{key}` holds a string that is not UTF-8 text"));
                    return None;
                }
            }
        }
        Some(out)
    }

    /// A `TENSOR` attribute.
    pub(super) fn tensor(&mut self, key: &str) -> Option<&'a TensorProto> {
        self.find(key, AttributeType::Tensor).and_then(|a| a.t.as_ref())
    }

    /// A `GRAPH` attribute (an `If`'s branch).
    pub(super) fn graph(&mut self, key: &str) -> Option<&'a GraphProto> {
        self.find(key, AttributeType::Graph).and_then(|a| a.g.as_ref())
    }

    /// The names of the attributes nobody asked for, in the node's order.
    pub(super) fn unread(&self) -> Vec<String> {
        self.node
            .attribute
            .iter()
            .zip(&self.read)
            .filter(|(_, r)| !**r)
            .map(|(a, _)| a.name.clone().unwrap_or_default())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attr(name: &str, t: AttributeType) -> AttributeProto {
        AttributeProto { name: Some(name.to_owned()), r#type: Some(t as i32), i: Some(3), ..Default::default() }
    }

    #[test]
    fn reads_by_type_and_names_what_was_not_read() {
        let node = NodeProto {
            attribute: vec![attr("axis", AttributeType::Int), attr("mode", AttributeType::Int)],
            ..Default::default()
        };
        let mut a = NodeAttrs::new(&node);
        assert_eq!(a.int("axis"), Some(3));
        assert_eq!(a.int("absent"), None);
        assert_eq!(a.unread(), ["mode"]);
        assert_eq!(a.float("mode"), None);
        assert_eq!(a.errors, ["attribute `mode` is of type INT; expected FLOAT"]);
        assert!(a.unread().is_empty());
    }
}
