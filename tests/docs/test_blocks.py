"""tests/docs/blocks.py: marked blocks are found (indented ones too), rewritten in place, and shapes compare runs."""

import pytest

from tests.docs.blocks import file_text, fold_repeats, marked_blocks, shape, with_bodies

PAGE = """# A page

<!-- file: a.py -->
```python
old
```

!!! note
    Inside an admonition:

    <!-- output: inner -->

    ```text
      FAIL one
    FAILED
    ```

```text
not marked
```
"""


def test_marked_blocks_are_read_with_their_indent_taken_off():
    blocks = marked_blocks(PAGE)
    assert [(b.kind, b.name, b.lang, b.body, b.indent) for b in blocks] == [
        ("file", "a.py", "python", "old", ""),
        ("output", "inner", "text", "  FAIL one\nFAILED", "    "),
    ]


def test_bodies_are_replaced_in_place_and_indented_as_the_block():
    new = with_bodies(PAGE, {("file", "a.py"): "x = 1\n\ny = 2\n", ("output", "inner"): "  PASS\nOK"})
    assert "```python\nx = 1\n\ny = 2\n```" in new
    assert "    ```text\n      PASS\n    OK\n    ```" in new
    assert new.endswith("```text\nnot marked\n```\n")
    assert [b.body for b in marked_blocks(new)] == ["x = 1\n\ny = 2", "  PASS\nOK"]
    assert with_bodies(PAGE, {}) == PAGE


def test_a_line_outside_the_indent_is_refused():
    with pytest.raises(ValueError, match="outside its indent"):
        marked_blocks("  <!-- output: x -->\n  ```text\nout\n  ```\n")


def test_a_region_is_the_lines_between_its_marks(tmp_path, monkeypatch):
    monkeypatch.setattr("tests.docs.blocks.ROOT", tmp_path)
    (tmp_path / "f.py").write_text("a\n    # region slow\n    b\n\n    c\n    # endregion slow\nd\n")
    assert file_text("f.py") == "a\n    # region slow\n    b\n\n    c\n    # endregion slow\nd"
    assert file_text("f.py#slow") == "    b\n\n    c"
    with pytest.raises(ValueError, match="region 'fast'"):
        file_text("f.py#fast")


def test_shape_keeps_labels_and_order_but_not_numbers_which_rows_or_progress_lines():
    one = "train catch: 3% 65,536/2,000,000 steps, ETA 1:42\ntrain catch: done\nrun folder: runs/catch-1\n"
    one += "[ 13.1%] step 65536 sps 1.2e+05 x=-0.99\n[100.0%] step 524288 sps 1.3e+05 x=0.34\ncatch: 1000 episodes\n"
    one += "  phase   episodes  win\n  straight   343  343\n  bounced  657  653\n  means: caught=0.97"
    two = "run folder: runs/catch-2\n[ 50.0%] step 65536 sps 9e+04 x=-2.1\ncatch: 200 episodes\n"
    two += "  phase   episodes  win\n  bounced  129  11\n  ... 1 phase in which no episode ended\n  means: caught=0.15"
    assert (
        shape(one)
        == shape(two)
        == [
            "run folder: runs/catch #",
            "[ #%] step # sps # x= #",
            "catch: # episodes",
            "phase episodes win",
            "<row>",
            "means: caught= #",
        ]
    )
    assert shape(one) != shape(one.replace("caught", "missed"))
    assert shape(one) != shape(one.replace("episodes  win", "episodes  won"))


def test_shape_keeps_a_boards_walls_but_not_where_its_pieces_stand():
    frame = "tag episode 0  tick 3 (3/30)  phase play\n.......\n.#.#.#.\nC.....R\ntick 3/30"
    moved = "tag episode 0  tick 9 (9/30)  phase play\n.......\n.#C#.#.\n....R..\ntick 9/30"
    assert shape(frame) == shape(moved)
    assert shape(frame)[1:4] == [".......", ".#.#.#.", "......."]
    assert shape(frame) != shape(frame.replace(".#.#.#.", ".##..#."))


def test_fold_repeats_keeps_the_first_and_the_last_of_each_run_of_one_shape():
    text = "a 1\nb: 1% 1,000/9,000\nb: 5% 5,000/9,000\nb: 50% 45,000/9,000\nb: 99% 1,000,000/9,000\nc 2"
    assert fold_repeats(text) == "a 1\nb: 1% 1,000/9,000\nb: 99% 1,000,000/9,000\nc 2"
