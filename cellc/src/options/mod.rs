//! The options of one compilation: one set for the command line, the build-script builder
//! and the macros, so the three cannot drift apart.
mod choices;
mod error;
mod fields;
mod keys;

pub use choices::{
    InputShape, Language, Simd, StateArg, Strategy, Threads, WeightTables, WeightType, WeightsMode, parse_rename,
    parse_state, parse_state_arg,
};
pub use error::{BadValue, OptionError};
pub use fields::Options;
pub use keys::{KEYS, Key};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_flags_are_named_with_both_values() {
        let opts = Options {
            input_shapes: vec![InputShape::parse("x=[1,2]").expect("x"), InputShape::parse("x=[1,?]").expect("x")],
            states: vec![("h".into(), "a".into()), ("h".into(), "b".into()), ("g".into(), "a".into())],
            cut_outputs: vec!["y".into(), "y".into()],
            ..Options::default()
        };
        let r: Vec<String> = opts.repeated().iter().map(ToString::to_string).collect();
        assert_eq!(r.len(), 4, "{r:?}");
        assert!(r[0].contains("--input x=[1,?]: Parameter \"x\" is given twice (x=[1,2] and x=[1,?])"), "{}", r[0]);
        assert!(r[1].contains("Parameter \"h\" is given twice (h=a and h=b)"), "{}", r[1]);
        assert!(r[2].contains("Result \"a\" is given twice (h=a and g=a)"), "{}", r[2]);
        assert!(r[3].contains("--outputs: \"y\" is named twice"), "{}", r[3]);
        assert!(Options::default().repeated().is_empty());
    }

    #[test]
    fn every_field_is_listed_where_the_doors_read_it() {
        // A new field must be added to the command line, the keys and the builder (the
        // integration tests check those three agree), or this stops compiling: outside the
        // crate the options are non-exhaustive.
        let Options {
            name: _,
            language: _,
            strategy: _,
            weights: _,
            weights_mode: _,
            simd: _,
            weight_type: _,
            fast_activations: _,
            weight_tables: _,
            threads: _,
            input_shapes: _,
            cut_inputs: _,
            cut_outputs: _,
            cell_names: _,
            states: _,
            state_auto: _,
        } = Options::default().name(Some("x".into()));
        assert_eq!(Options::default().name(Some("x".into())).name, Some("x".to_owned()));
    }

    #[test]
    fn names_parse_back() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::parse(s.name()), Some(s));
        }
        for m in [WeightsMode::Embedded, WeightsMode::Runtime] {
            assert_eq!(WeightsMode::parse(m.name()), Some(m));
        }
        for s in Simd::ALL {
            assert_eq!(Simd::parse(s.name()), Some(s));
        }
        for t in WeightType::ALL {
            assert_eq!(WeightType::parse(t.name()), Some(t));
        }
        // The macros' key says every weight type it takes.
        let names: Vec<&str> = WeightType::ALL.iter().map(|t| t.name()).collect();
        let key = keys::KEYS.iter().find(|k| k.name == "weight_type").expect("a key");
        assert_eq!(key.value, names.join("|"));
        for l in [Language::Rust, Language::C] {
            assert_eq!(Language::parse(l.name()), Some(l));
        }
        assert_eq!(Strategy::parse("fast"), None);
        assert_eq!(Threads::parse(" 2").ok(), Threads::new(2));
        for bad in ["0", "17", "-1", "two"] {
            assert!(Threads::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn input_shapes_parse() {
        let s = InputShape::parse("x:0=[1, ?,16,-1]").expect("parses");
        assert_eq!(s, InputShape { name: "x:0".into(), dims: vec![Some(1), None, Some(16), None], value: None });
        let v = InputShape::parse("sr=16000").expect("a value");
        assert_eq!(v, InputShape { name: "sr".into(), dims: Vec::new(), value: Some(16000.0) });
        assert_eq!((v.to_string(), s.to_string()), ("sr=16000".to_owned(), "x:0=[1,?,16,?]".to_owned()));
        assert_eq!(InputShape::parse("s=[]").expect("scalar").dims, Vec::new());
        for bad in ["x", "x=1,2", "=[1]", "x=[1,a]", "x=[-2]", "x=inf", "x=NaN"] {
            assert!(InputShape::parse(bad).is_err(), "{bad}");
        }
    }
}
