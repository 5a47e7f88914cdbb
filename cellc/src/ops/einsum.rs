//! `Einsum` (opset 7) of one or two operands, each letter of an operand naming one of its
//! axes: what it computes here (shape rule and evaluation on constants), and the plan of
//! transposes, reshapes, a sum and a matrix product `passes::lower` rewrites it into.
use super::error::{OpError, refuse};
use super::tensor::{count, extents, show, strides, unflatten};
use super::tensor::{input, input_shape};
use crate::vocab::{Data, Fact, Sym};

/// A parsed equation: the letters of each operand and of the output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Equation {
    /// The operands' subscripts.
    pub inputs: Vec<Vec<char>>,
    /// The output's subscripts.
    pub output: Vec<char>,
}

impl Equation {
    /// Parses `ab,bc->ac` (an implicit output, `ab,bc`, takes the letters used once, in
    /// alphabetical order, as numpy does). Ellipses and letters repeated within one operand
    /// (diagonals) are refused.
    pub fn parse(s: &str) -> Result<Equation, OpError> {
        // OpenVINO's Einsum takes letters, commas, one `->` and ellipses: no spaces.
        if let Some(c) = s.chars().find(|c| c.is_whitespace()) {
            return Err(refuse!(
                "equation {s:?} holds the whitespace {c:?}; expected subscript letters, commas and `->` alone"
            ));
        }
        if s.contains("...") {
            return Err(refuse!("equation {s:?}: cellc does not compile ellipses (`...`) in Einsum yet"));
        }
        let (lhs, out) = match s.split_once("->") {
            Some((l, r)) => (l.to_owned(), Some(r.to_owned())),
            None => (s.to_owned(), None),
        };
        let inputs: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
        if inputs.is_empty() || inputs.len() > 2 {
            return Err(refuse!("equation {s:?} has {} operands; cellc compiles Einsum of one or two", inputs.len()));
        }
        let letters = |t: &[char]| -> Result<(), OpError> {
            if let Some(c) = t.iter().find(|c| !c.is_ascii_alphabetic()) {
                return Err(refuse!("equation {s:?}: {c:?} is not a subscript letter"));
            }
            Ok(())
        };
        let repeated = |t: &[char]| t.iter().copied().find(|&c| t.iter().filter(|&&d| d == c).count() > 1);
        // A letter repeated within an operand reads its diagonal (a trace when the output
        // leaves it out).
        for t in &inputs {
            letters(t)?;
        }
        let output: Vec<char> = match out {
            Some(o) => o.chars().collect(),
            // numpy reads `ii` as a trace; OpenVINO's Einsum-7 infers an output that keeps the
            // repeated letters (and then fails to compute it): no output cellc could give is
            // OpenVINO's.
            None if inputs.iter().any(|t| repeated(t).is_some()) => {
                return Err(refuse!(
                    "equation {s:?} repeats a subscript within an operand and leaves its output implicit, which OpenVINO and numpy read differently; write the output subscripts (`->…`)"
                ));
            }
            None => {
                let mut once: Vec<char> = inputs
                    .iter()
                    .flatten()
                    .copied()
                    .filter(|c| inputs.iter().flatten().filter(|d| *d == c).count() == 1)
                    .collect();
                once.sort_unstable();
                once
            }
        };
        letters(&output)?;
        if let Some(c) = repeated(&output) {
            return Err(refuse!("equation {s:?} repeats {c:?} in its output; expected each output subscript once"));
        }
        if let Some(c) = output.iter().find(|c| !inputs.iter().flatten().any(|d| d == *c)) {
            return Err(refuse!("equation {s:?}: output subscript {c:?} is not in any operand"));
        }
        Ok(Equation { inputs, output })
    }

    /// The size of each letter, from the operands' shapes; a letter's sizes must agree.
    pub fn sizes(&self, shapes: &[&[Sym]]) -> Result<Vec<(char, Sym)>, OpError> {
        let mut sizes: Vec<(char, Sym)> = Vec::new();
        for (k, (t, s)) in self.inputs.iter().zip(shapes).enumerate() {
            if t.len() != s.len() {
                return Err(refuse!(
                    "operand {k} has shape {} for subscripts {:?}",
                    show(s),
                    t.iter().collect::<String>()
                ));
            }
            for (&c, &d) in t.iter().zip(s.iter()) {
                match sizes.iter().find(|(l, _)| *l == c) {
                    Some((_, e)) if e.equals(d) == Some(false) || (!e.is_known() && *e != d) => {
                        return Err(refuse!("subscript {c:?} is {e} in one operand and {d} in another"));
                    }
                    Some(_) => {}
                    None => sizes.push((c, d)),
                }
            }
        }
        Ok(sizes)
    }
}

fn size_of(sizes: &[(char, Sym)], c: char) -> Sym {
    sizes.iter().find(|(l, _)| *l == c).map_or(Sym::known(1), |(_, s)| *s)
}

pub(super) fn infer(eq: &Equation, ins: &[Option<&Fact>]) -> Result<Vec<Fact>, OpError> {
    if ins.len() != eq.inputs.len() {
        return Err(refuse!("the equation has {} operands; the layer has {} inputs", eq.inputs.len(), ins.len()));
    }
    let facts: Vec<&Fact> = (0..ins.len()).map(|i| input(ins, i, "operand")).collect::<Result<_, _>>()?;
    let shapes: Vec<&[Sym]> = (0..ins.len()).map(|i| input_shape(ins, i, "operand")).collect::<Result<_, _>>()?;
    let elem = facts[0].elem;
    if facts.iter().any(|f| f.elem != elem) || !elem.is_float() {
        return Err(OpError::Rule("its operands must be of one float type".to_owned()));
    }
    let sizes = eq.sizes(&shapes)?;
    let out: Vec<Sym> = eq.output.iter().map(|&c| size_of(&sizes, c)).collect();
    let value = (|| {
        let vals: Vec<Vec<f64>> = facts.iter().map(|f| f.value.as_ref()?.floats()).collect::<Option<_>>()?;
        let letters: Vec<char> = sizes.iter().map(|(c, _)| *c).collect();
        let ext = extents(&sizes.iter().map(|(_, s)| *s).collect::<Vec<_>>())?;
        if sizes.iter().any(|(_, s)| !s.is_known()) {
            return None;
        }
        let oext: Vec<usize> =
            eq.output.iter().map(|c| ext[letters.iter().position(|l| l == c).unwrap_or(0)]).collect();
        let ost = strides(&oext);
        let operand_strides: Vec<Vec<(usize, usize)>> = eq
            .inputs
            .iter()
            .map(|t| {
                let e: Vec<usize> = t.iter().map(|c| ext[letters.iter().position(|l| l == c).unwrap_or(0)]).collect();
                let st = strides(&e);
                t.iter().zip(st).map(|(c, s)| (letters.iter().position(|l| l == c).unwrap_or(0), s)).collect()
            })
            .collect();
        let mut result = vec![0.0; count(&oext)];
        let mut idx = vec![0; ext.len()];
        for i in 0..count(&ext) {
            unflatten(i, &ext, &mut idx);
            let prod: f64 = vals
                .iter()
                .zip(&operand_strides)
                .map(|(v, st)| v[st.iter().map(|&(l, s)| idx[l] * s).sum::<usize>()])
                .product();
            let at: usize = eq
                .output
                .iter()
                .zip(&ost)
                .map(|(c, s)| idx[letters.iter().position(|l| l == c).unwrap_or(0)] * s)
                .sum();
            result[at] += prod;
        }
        Some(Data::Float(result.into_iter().map(|v| elem.round(v)).collect()))
    })();
    Ok(vec![Fact { elem, shape: Some(out), value }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::Op;

    #[test]
    fn equations_parse_with_numpy_implicit_outputs_and_refuse_what_is_not_compiled() {
        let e = Equation::parse("btgi,gih->btgh").expect("parses");
        assert_eq!(e.inputs, [vec!['b', 't', 'g', 'i'], vec!['g', 'i', 'h']]);
        assert_eq!(e.output, ['b', 't', 'g', 'h']);
        // Implicit: the letters used once, in alphabetical order.
        assert_eq!(Equation::parse("kj,ji").expect("parses").output, ['i', 'k']);
        assert_eq!(Equation::parse("ii->i").expect("a diagonal").inputs, [vec!['i', 'i']]);
        assert_eq!(Equation::parse("ii->").expect("a trace").output, Vec::<char>::new());
        assert!(Equation::parse("ii").is_err_and(|m| m.to_string().contains("write the output subscripts")));
        assert!(Equation::parse("...i,ij->...j").is_err_and(|m| m.to_string().contains("ellips")));
        assert!(Equation::parse("ij,jk,kl->il").is_err_and(|m| m.to_string().contains("3 operands")));
        assert!(Equation::parse("ij->ik").is_err_and(|m| m.to_string().contains("'k'")));
        // OpenVINO's Einsum takes no whitespace, and an output subscript once.
        assert!(Equation::parse("btgi, gih -> btgh").is_err_and(|m| m.to_string().contains("whitespace ' '")));
        let twice = Equation::parse("ij,jk->ii").expect_err("an output subscript twice").to_string();
        assert!(twice.contains("repeats 'i' in its output") && !twice.contains("diagonal"), "{twice}");
    }

    #[test]
    fn a_folded_einsum_is_the_sum_of_products() {
        use crate::vocab::Elem;
        let k = Sym::known;
        let a = Fact::constant(Elem::F64, vec![k(2), k(3)], Data::Float((1..=6).map(f64::from).collect()));
        let b = Fact::constant(Elem::F64, vec![k(3)], Data::Float(vec![1.0, 0.5, -1.0]));
        let op = Op::Einsum(Box::new(Equation::parse("ij,j->i").expect("parses")));
        let y = &crate::ops::infer(&op, &[Some(&a), Some(&b)], 1).expect("infers")[0];
        // Row by row: 1 + 1 - 3 and 4 + 2.5 - 6.
        assert_eq!(y.value, Some(Data::Float(vec![-1.0, 0.5])));
    }
}
