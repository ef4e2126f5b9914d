//! Models past the size of the rules' working memory (a 4,096-bit set on the stack): a subgraph
//! of more tensors, a model of more subgraphs. The verdicts are the ones a check holding the
//! whole model at once would give, and nothing allocates, so firmware, the host library and the
//! C ABI check them alike.

use crate::counting_alloc::allocations;
use crate::planus_support::{bytes, model, t};

use flatmodel::graph::Warning;
use flatmodel::{tflite, ErrorKind};

/// The error `tflite::Model::parse` gives `data` (or `None`), asserting that it allocated nothing.
#[track_caller]
fn parse_without_allocating(data: &[u8]) -> Option<flatmodel::Error> {
    let (error, n) = allocations(|| tflite::Model::parse(data).err());
    assert_eq!(n, 0, "{n} allocations");
    error
}

/// `data` is rejected with `kind` at exactly `path`.
#[track_caller]
fn rejected_at(data: &[u8], kind: ErrorKind, path: &str) {
    let Some(e) = parse_without_allocating(data) else { panic!("accepted; expected {kind:?} at {path}") };
    assert_eq!((e.kind(), e.location().to_string()), (kind, path.to_string()), "{e}");
}

fn subgraphs(m: &mut t::Model) -> &mut Vec<t::SubGraph> {
    m.subgraphs.as_mut().unwrap()
}

/// `sine_float` with `extra` more tensors in its subgraph, none holding data: the first extra one
/// is tensor `first`.
fn with_tensors(extra: usize) -> (t::Model, i32) {
    let mut m = model("sine_float");
    let sg = &mut subgraphs(&mut m)[0];
    let tensors = sg.tensors.as_mut().unwrap();
    let first = i32::try_from(tensors.len()).unwrap();
    let mut blank = tensors[0].clone();
    (blank.buffer, blank.is_variable, blank.name) = (0, false, Some("extra".into()));
    tensors.extend(std::iter::repeat_n(blank, extra));
    (m, first)
}

fn operator(m: &mut t::Model, sg: usize, op: usize) -> &mut t::Operator {
    &mut subgraphs(m)[sg].operators.as_mut().unwrap()[op]
}

/// A constant tensor of `sine_float` (its data in a buffer), below 4,096.
fn a_constant(m: &t::Model) -> i32 {
    let sg = &m.subgraphs.as_ref().unwrap()[0];
    let buffers = m.buffers.as_ref().unwrap();
    let has_data = |b: u32| buffers[b as usize].data.as_ref().is_some_and(|d| !d.is_empty());
    let index = sg.tensors.as_ref().unwrap().iter().position(|t| t.buffer != 0 && has_data(t.buffer));
    i32::try_from(index.expect("sine_float has constant tensors")).unwrap()
}

#[test]
fn a_subgraph_of_ten_thousand_tensors_is_checked_whole() {
    let (m, first) = with_tensors(10_000);
    assert!(parse_without_allocating(&bytes(&m)).is_none(), "the unedited model is valid");

    // An input of the subgraph, in the third window of 4,096 tensors, written by operator 1;
    // operator 2 writes a constant, in the first window. One walk over all tensors stops at
    // operator 1: so must the walk window by window.
    let (mut m, _) = with_tensors(10_000);
    let late = first + 9_000;
    subgraphs(&mut m)[0].inputs.as_mut().unwrap().push(late);
    let constant = a_constant(&m);
    operator(&mut m, 0, 1).outputs = Some(vec![late]);
    operator(&mut m, 0, 2).outputs = Some(vec![constant]);
    let produced_twice = ErrorKind::Rule("operator output is a constant, a variable, an input or produced twice");
    rejected_at(&bytes(&m), produced_twice, "Model.subgraphs[0].operators[1].outputs[0]");
    // Operator 1 writing a tensor no one else writes: the first is operator 2's constant.
    operator(&mut m, 0, 1).outputs = Some(vec![late - 1]);
    rejected_at(&bytes(&m), produced_twice, "Model.subgraphs[0].operators[2].outputs[0]");
}

#[test]
fn an_input_nothing_produces_past_the_first_window_is_reported() {
    let (mut m, first) = with_tensors(10_000);
    let never_written = first + 8_500;
    operator(&mut m, 0, 0).inputs.as_mut().unwrap().push(never_written);
    let data = bytes(&m);
    let model = tflite::Model::parse(&data).unwrap();
    // The unproduced inputs found, and how many (kept without a heap, to count the library's).
    let (mut unproduced, mut count) = (None, 0);
    let (outcome, n) = allocations(|| {
        model.for_each_warning(|w| {
            if matches!(w, Warning::UnproducedInput { .. }) {
                (unproduced, count) = (Some(w), count + 1);
            }
        })
    });
    outcome.unwrap();
    assert_eq!(n, 0, "{n} allocations");
    let input = u32::try_from(operator(&mut m, 0, 0).inputs.as_ref().unwrap().len() - 1).unwrap();
    assert_eq!((unproduced, count), (Some(Warning::UnproducedInput { subgraph: 0, operator: 0, input }), 1));
}

/// `sine_float` with `n` subgraphs: the first its own, then `n - 1` without tensors or
/// operators; and the index of a CALL operator code.
fn with_subgraphs(n: usize) -> (t::Model, u32) {
    let mut m = model("sine_float");
    let codes = m.operator_codes.get_or_insert_with(Vec::new);
    codes.push(t::OperatorCode {
        deprecated_builtin_code: 31,
        builtin_code: t::BuiltinOperator::Call,
        version: 1,
        custom_code: None,
    });
    let call = u32::try_from(codes.len() - 1).unwrap();
    let mut empty = subgraphs(&mut m)[0].clone();
    (empty.tensors, empty.inputs, empty.outputs, empty.operators) = (None, None, None, Some(vec![]));
    subgraphs(&mut m).extend(std::iter::repeat_n(empty, n - 1));
    (m, call)
}

/// Makes subgraph `from` call subgraph `to`, with an operator of its own.
fn call(m: &mut t::Model, code: u32, from: usize, to: u32) {
    let template = operator(m, 0, 0).clone();
    let op = t::Operator {
        opcode_index: code,
        inputs: Some(vec![]),
        outputs: Some(vec![]),
        builtin_options: Some(t::BuiltinOptions::CallOptions(Box::new(t::CallOptions { subgraph: to }))),
        ..template
    };
    subgraphs(m)[from].operators.get_or_insert_with(Vec::new).push(op);
}

#[test]
fn a_chain_of_three_hundred_subgraphs_is_checked_for_cycles() {
    let (mut m, code) = with_subgraphs(300);
    for s in 1..299 {
        call(&mut m, code, s, u32::try_from(s + 1).unwrap());
    }
    assert!(parse_without_allocating(&bytes(&m)).is_none(), "a chain is no cycle");
    call(&mut m, code, 299, 150);
    let cycle = ErrorKind::Rule("control-flow subgraphs call each other in a cycle");
    rejected_at(&bytes(&m), cycle, "Model.subgraphs");
}

#[test]
fn subgraphs_past_the_4096th_may_be_called_but_may_not_call() {
    let (mut m, code) = with_subgraphs(4_100);
    call(&mut m, code, 1, 4_099);
    call(&mut m, code, 2, 3);
    call(&mut m, code, 3, 2);
    let cycle = ErrorKind::Rule("control-flow subgraphs call each other in a cycle");
    rejected_at(&bytes(&m), cycle, "Model.subgraphs");
    subgraphs(&mut m)[3].operators = Some(vec![]);
    assert!(parse_without_allocating(&bytes(&m)).is_none(), "calls into a subgraph past the 4,096th");
    call(&mut m, code, 4_098, 1);
    let untracked = ErrorKind::Rule("subgraphs past the 4,096th may not call others");
    rejected_at(&bytes(&m), untracked, "Model.subgraphs[4098].operators[0]");
}
