"""The glossary's own numbers and formulas, derived rather than copied.

``book/glossary.md`` defines the book's terms. ``tests/test_summary.py`` checks its worked example, Llama 3.1's
bands, the betas row and the rows that repeat chapters 5 and 10 (``test_glossary_worked_examples``,
``test_glossary_rows_follow_the_chapters``). The tests below derive the page's other numbers and formulas from
``posenc``, the saved run ``posenc/results/extrapolation.json`` and the installed transformers, and read each one
from the page: change a number, an exponent, an inequality, a sign or a direction word in one of the rows and
sentences these tests name, and its test fails. Rows no test names are not covered. A formula is read from the page's
LaTeX and evaluated (:func:`evaluate`), so a changed exponent changes the computed values.

Some values have no offline source but ``posenc/book/models.py``'s hand copies of the published configs: Llama 3's
base, Llama 3.1's two bounds and two lengths, and Gemma 3's factor (its 4B and 12B configs were read by hand, in
transformers' conversion script and a copy of the 12B config: linear, factor 8). Their tests compare the page with
those copies (a prose sync: a wrong copy passes) and derive what the page says the values do. CoPE's paper form has
no offline source either: its test reads chapter 11's account of the paper and the reference code, which posenc follows.

Many asserts only check that a sentence or row keeps its wording, such as ``"... before RoPE rotates them |" in
row("QK-norm")``. Such an assert catches an edit, not an error: it would pass if the fact were false. The claim is
checked only where the same test also derives it from code, a run or a chapter, as the QK-norm test does by reading
every installed model file. So the number of tests here is not a measure of coverage.
"""

from __future__ import annotations

import glob
import inspect
import json
import math
import re
from pathlib import Path
from types import CellType, FunctionType

import pytest
import torch
from conftest import chapter_markdown as chapter, divisor_bands, hf_dynamic_ntk_freqs, hf_inv_freq

import posenc
from posenc.book.models import MODEL_ROPE_CONFIGS
from posenc.book.properties import attention_entropy
from posenc.experiments import PasskeyCorpus, experiment_scaling, load_results

ROOT = Path(__file__).resolve().parents[1]
transformers = pytest.importorskip("transformers")


#: the summary of the collapsed worked example in "Longer inputs"
WE = "Worked example: a head like Llama 3.1's at 2L"
#: the collapsed block right after it, on the worked example's dynamic NTK: the derivation of its 9
DYN = "The worked example's dynamic NTK: its 9"
#: the worked example's dynamic NTK cell, its effective factor: fix pass 242 (reads r239 #5 and r241 #2: the cell
#: alone read as transformers' `dynamic` on Llama 3.1's file) named the L it starts from; fix pass 272 (read r269b #6,
#: unclear: the cell still sat beside `llama3` and YaRN as if Llama 3.1 could run it) says so plainly: it scales from
#: the trained length, and with Llama 3.1's file, whose declared length is 16L, transformers' `dynamic` would not scale
#: this input (checked in test_worked_example_reads_the_trained_length_and_the_shipped_config_a_larger_one); fix pass
#: 274 (read r271b #3, unclear: "with Llama 3.1's own file, transformers' `dynamic`" read as a fact about Llama 3.1,
#: whose file names `llama3`): the counterfactual explicit, "run as `dynamic`"
DYN_NTK_CELL = (
    "9 at this length, scaling from the trained length, 8 192; run as `dynamic` with Llama 3.1's own file,"
    " transformers would not scale this input"
)
#: the summary of the first collapsed block under the "Longer inputs" term table
MORE_LONGER = "More on NTK-by-parts, Self-Extend, PoSE, passkey retrieval and sliding-window evaluation"
#: the collapsed block on what chapter 8 measured, after the worked example's two blocks
COSTS = "Slowing pairs has costs: what chapter 8 measured"
#: the subsection of "Longer inputs" after its term table: the main line on Llama 3.1's head, and the blocks above
EXAMPLE = "### How these terms fit together: Llama 3.1's head"


# the longer-inputs primer's slow-pair sentences, with what a new angle is: a long enough input is the cause, the
# decoder the scope (read r178: "so" had made causal attention sound like the cause); read r186: "in a decoder" met the
# learner unexplained, so the main line gives its reason in one sentence, the one-sided arc, between the definition
# and the new angle it explains; read r191: the section's lesson comes first, and the new angle is what a scaling's
# slowing prevents
SLOW_PAIR_CLAUSE = (
    # read r199: the 38-word sentence on the decoder split in two, and its repeated "0 to $L - 1$" gone
    # read r203: the clause moved to the top of "Longer inputs", right under the letters' sentence, and "training's
    # distances" became "training's query-key distances" (of what?); the angles past the arc that a long input brings
    # are the section's lesson, :data:`LONGER_LESSON`, above it
    # fix pass 258 (reads r253 #3 and r253b #1: two near-identical thresholds, L - 1 here and L in turns in L, met the
    # learner on the main line): the main line says "over the trained length" and the arc in one sentence; the rows
    # keep the exact L - 1, and the block "Turns in L and the fast pairs' distances" says the two counts agree but at
    # a boundary
    # fix pass 258b (reads r258 #1 and r258b #3: "over the trained length" met the rows' L - 1): the rows' words
    # fix pass 280 (reads r276a #1 and r276b #1, unclear: two near-identical thresholds, L - 1 here and L in the rules'
    # turns in L, met the learner on the main line): the main line says "over a training input"; the rows keep the
    # exact L - 1, and the block "Turns in L and the fast pairs' distances" says which count it means
    # fix pass 285 (reads r280a #2 and r280b #1, unclear: "over a training input" counted over L - 1 here and over L
    # for the rules' bounds): one count on the main line, turns in L, the code's; the rows keep L - 1, and the block
    # "Turns in L and the fast pairs' distances" says the two counts sort Llama 3.1's pairs alike
    # fix pass 286 (reads r281a #1 and r281b #1, unclear: "in $L$ positions" here, L - 1 in the rows, L in the turns
    # in L row): the rows' count, over the distances training showed, 0 to L - 1
    "A *slow pair* turns less than once over the distances training showed, 0 to $L - 1$. In a decoder, whose keys sit"
    " at or behind their query, training then showed it only one arc of its circle."
)
#: the longer-inputs primer's lesson, its first sentence (read r191: lesson first, PI slows the fastest pairs, `llama3`
#: and YaRN keep them); it says "slowest", not the term *slow pair*, which :data:`SLOW_PAIR_CLAUSE` defines right
#: after it (read r188)
LESSON = (
    # fix pass 236 (read r235 #1, overstated: in chapter 8's head, YaRN with betas 32/1 slows fast pairs 1 and 2):
    # scoped to the example head, whose fast pairs YaRN and `llama3` keep (checked in
    # test_longer_inputs_opens_with_what_most_rules_divide_and_keep, on this head in transformers)
    "In a head like Llama 3.1's, position interpolation, `llama3` and YaRN all slow the slowest pairs; only position"
    " interpolation also slows the fastest pairs."
)
#: the main line's sentences right above the fastest-pair table: the example head, and what its `factor` buys (read
#: r191: the old "8 where 2 would do" puzzle and its repeated "8, the `factor`, at any length" column are gone)
FIXED_RULES = (
    # fix pass 286 (read r281a #3, overstated mild): the 8L bound says what it bounds, the slowest pair's angles
    # against training's at L (checked in
    # test_worked_example_reads_the_trained_length_and_the_shipped_config_a_larger_one)
    "Give that head a `factor` of 8. All three rules divide its slowest pair's frequency by 8, enough to keep that"
    " pair within the angles training at $L$ showed for inputs up to about $8L$. They differ on the fastest pair:"
)
#: the Letters table's temperature row: this page's divisor, and each chapter's multipliers in its own words (read
#: r186: chapter 8 calls a growing multiplier a temperature, not Llama 4's tau by name)
TEMPERATURE_LETTERS = (
    "| temperature | a number $t$ that divides the logits | a multiplier of the logits: in chapter 8, one that grows"
    " with the query's position, and YaRN's *attention factor* in one run's name; in chapter 10, Llama 4's $\\tau$ and"
    " scales like it: see {ref}`Temperature and query scales <glossary-scales>` |"
)
#: the main line's fast-pair sentence, the last before the example (read r192: "it needs no slowing" stated
#: NTK-by-parts' reasoning as a fact, though `llama3` and YaRN slow Llama 3.1's fast pairs 29 to 34 and 19 to 34): the
#: two rules keep only the fastest of the fast pairs
FASTEST_PAIR_LINES = (
    # read r203: at the section's top, before any rule is named, "some rules" for `llama3` and YaRN
    # fix pass 266 (read r265 #1, overstated: "training showed it the whole circle", though training shows a grid of
    # angles theta_i apart, 57 degrees for pair 0): the block's words, "at most $\theta_i$ apart" (checked in
    # test_fast_pairs_trained_angles_go_all_the_way_round)
    # fix pass 285 (reads r280a #2 and r280b #1): "at least once in $L$", the main line's one count
    # fix pass 286 (reads r281a #1 and r281b #1): "at least once over them", the distances 0 to L - 1, the rows' count
    "A *fast pair* turns at least once over them, so its trained angles go all the way round the circle, at most"
    " $\\theta_i$ apart."
    # fix pass 279 (reads r275a #3 and r275b #2, unclear: six ideas and three index ranges in one paragraph, *kept*
    # and *ramp* used before any definition): one idea, the slow pairs divided and the fastest kept, each term glossed
    # where first used; the Llama 3.1 pair numbers moved to the example's main line, :data:`LLAMA_FAST_NOT_KEPT`
    # (checked in test_main_line_says_rules_that_keep_the_fastest_pairs_slow_others)
    # fix pass 281 (main line kept at its length): "The rules below divide the slow pairs' frequencies" went, as the
    # section's opening already says that most rules divide them; "Some leave" became "Some rules leave"
    " Some rules leave the fastest pairs *kept*, at their trained"
    # fix pass 288 (read r283a #1, unclear: "Such rules *ramp* the pairs between" came before any pair was said to be
    # divided): the slowest pairs fully divided first, then the ramp between (checked in
    # test_main_line_says_rules_that_keep_the_fastest_pairs_slow_others: the slowest pair divided by s)
    " frequencies. Such rules divide the slowest pairs fully and *ramp* those between, blending each pair's unchanged"
    " and divided frequencies."
    # fix pass 280 (reads r276a #2 and r276b #1, unclear: "So a fast pair that turns only a few times can be ramped"
    # followed from nothing, and "a few" depends on the rule): each rule's own bound, from the *betas* and `llama3`
    # rows' bounds (checked in test_main_line_names_each_rules_bound_in_turns_in_l, on transformers' code)
    # fix pass 281 (reads r277a #1, #2 and r277b #2, unclear: two counts, "in L" and "over a training input", and
    # "at least" for one bound, "more than" for the other, though both are non-strict in the code): one count, "over a
    # training input", with the exact L against L - 1 in the block "Turns in L and the fast pairs' distances", and
    # "at least" for both (checked on transformers' code in test_main_line_names_each_rules_bound_in_turns_in_l)
    # fix pass 285 (reads r280a #2 and r280b #1): "in $L$", the count the code uses, for both bounds
    # fix pass 286 (reads r281a #1 and r281b #1, unclear: one word counted two ways): the code's count named, *turns in
    # $L$*, and that both counts sort Llama 3.1's pairs alike (checked in
    # test_llama3_and_yarn_count_turns_over_one_position_more)
    # fix pass 287 (read r282b #1 and r282a #3, unclear: a second count, and at once that it did not matter, on the
    # main line): the sentence on the two counts went; the bounds name the term itself, *turns in $L$*, whose row and
    # the block "Turns in L and the fast pairs' distances" explain the count
    # fix pass 288 (read r283b #1, overstated minor: YaRN's default bound read as the rule, though transformers' code
    # keeps pair 0 whenever it turns fewer than `beta_fast` times): pair 0 added, not "always" (checked in
    # test_main_line_names_each_rules_bound_in_turns_in_l on chapter 8's head)
    # fix pass 289 (reads r284a #2 and r284b #1, unclear: "and pair 0 whenever it turns fewer" read as `llama3`'s too):
    # YaRN's bound in its own sentence, pair 0 as its code's
    " `llama3` keeps the pairs with at least 4 *turns in $L$*. YaRN by default keeps those with at least 32 and, in its"
    " code, pair 0 even below that."
)
#: the main line's example right after :data:`FASTEST_PAIR_LINES` (fix pass 272, read r269b #3, unclear: the hardest
#: sentence's example was only in a block): its numbers derived in
#: :func:`test_main_line_example_of_a_fast_pair_that_llama3_does_not_keep`
#: fix pass 279 (reads r275a #3 and r275b #2): moved from the section's opening to the example's main line, right
#: after its fastest-pair table, the ramp in the same sentence; the one main-line statement of these numbers
YARN_FEWER_16L = (
    # fix pass 285 (reads r280a #1 and r280b #2, unclear: "enough for inputs up to about 8L", then "configured for
    # inputs of up to 16L", met the learner as a contradiction): one sentence reconciles them with the worked
    # example's own facts (checked in test_worked_example_reads_the_trained_length_and_the_shipped_config_a_larger_one)
    # fix pass 286 (read r281a #3, overstated mild: "but Llama 3.1 went on training" read as if that training fixed
    # the new angles past 8L): the 8L bound moved to :data:`FIXED_RULES`; here only the declared length and the
    # later training, the worked example's hedge kept in its block; YaRN's kept pairs moved to :data:`LLAMA_PAIRS_TABLE`
    # fix pass 287 (read r282a #4 and r282b #3, unclear: 8L above the table and 16L below it read as a contradiction):
    # the 8L bound repeated right before the 16L, then the declared length and the later training, with no claim that
    # this training covered the angles past 8L (the worked example's block keeps its hedge)
    "With this `factor`, the slowest pair stays within its trained angles up to about $8L$. Llama 3.1 is still"
    " configured for inputs up to $16L$: after training at $L$, it went on training on inputs that long."
)
#: fix pass 286 (reads r281a #5 and r281b #2, unclear: nine pair numbers in two sentences, no picture): the lead-in
#: sentence and a table of the pairs by turns in L, each cell checked on transformers' code in
#: :func:`test_main_line_example_of_a_fast_pair_that_llama3_does_not_keep`
#: fix pass 287 (read r282b #2, unclear minor: "both rules" after a table of three rules): the two rules named
LLAMA_FAST_NOT_KEPT = "In that head, pairs 0 to 34 are fast, and `llama3` and YaRN keep only some of them:"
LLAMA_PAIRS_TABLE = (
    "| pairs | *turns in $L$* | `llama3` | YaRN |\n"
    "|---|---|---|---|\n"
    "| 0 to 18 | 32 or more | kept | kept |\n"
    "| 19 to 28 | 4 to 32 | kept | ramped |\n"
    "| 29 to 34 | 1 to 4 | ramped | ramped |\n"
    "| 35 to 63 | under 1 | divided by 8 | divided by 8 |"
)
FLAT_PAIRS_TABLE = " ".join(LLAMA_PAIRS_TABLE.split())
#: the sentence right before :data:`LLAMA_FAST_NOT_KEPT` (fix pass 274, reads r271a #3 and r271b #2, unclear: the main
#: line's example named Llama 3.1's head, which only the collapsed worked example described): the head in words, its
#: width, base and trained length, checked against posenc's copy of Llama 3.1's config and the worked example in
#: :func:`test_main_line_example_of_a_fast_pair_that_llama3_does_not_keep`
LLAMA_HEAD = "Llama 3.1 has heads 128 wide, a base of half a million and a trained length of 8 192 tokens."
#: the Longer-inputs code block's sentence on when transformers' yarn keeps pair 0 (fix pass 279, read r275a #1,
#: unclear: "in any head whose slowest pair turns at most `beta_fast` times" was sufficient, not necessary, and read as
#: if pair 0 were divided in other heads): the exact condition with `truncate`, swept in
#: :func:`test_yarn_betas_row_and_pair_0`
#: fix pass 281 (read r277b #6, unclear: the bullet did not say why the code divides every pair there, against the
#: betas row): the reason, the clamp `min(high, dim - 1)`, checked in
#: :func:`test_yarn_divides_every_pair_where_its_kept_end_passes_the_clamp`
#: fix pass 285 (read r280a #3, unclear: about 20 lines of a transformers edge case far from any definition): the
#: bullet keeps the essential fact in four lines; the clamp's reason, :data:`CLAMP_WHY`, the toy head and the exact
#: bounds moved to the nested block :data:`YARN_EDGES`, each claim's check unchanged
NEW_PAIR_0 = (
    "transformers' code divides pair 0 only in a head whose base is far below real models', such as 2: with"
    " `truncate`, exactly when $L \\ge 2\\pi b^2$ times `beta_fast`, and then it divides every pair by $s$."
)
#: the nested block under the Longer-inputs "In models and code" (fix pass 285, read r280a #3)
YARN_EDGES = "YaRN's code at its edges: the clamp, a toy head and exact bounds"
#: its first bullet, the old bullet's reason for dividing every pair (fix pass 281, read r277b #6), words kept
CLAMP_WHY = (
    "- Where transformers' `yarn` divides pair 0, every pair turns more than `beta_fast` times, and the *betas* row"
    " would keep them all. The cause is the clamp `min(high, dim - 1)`: it bounds the ramp's divided end by the"
    " rotated width `dim`, not by the last pair, and the kept end has no upper bound. Here the kept end passes the"
    " divided one, so the ramp runs backwards."
)
#: the block "Turns in L and the fast pairs' distances", its sentence with both counts as inequalities (read r192: two
#: near-identical criteria, $(L - 1)\theta_i$ and $L\theta_i$ against a turn, met the learner in three rows; read r197:
#: the fast pair row's sentence on the second count left the row, which the block already said): the fast-pair test,
#: the second count, and that the two agree but at the boundary case the block's sentence before it names
FAST_PAIR_TWO_COUNTS = (
    r"In symbols, a pair is fast when \$([^$]+)\$ and turns at least once in \$L\$ when \$([^$]+)\$; the two pick the"
    r" (same) pairs except in that boundary case\."
)
#: the fast pair row's inequality, after its reason for $L - 1$ (read r199: the row's $(L - 1)\theta_i$ and the turns
#: in $L$ row's $L\theta_i$ met the learner unreconciled; the clause says why the fast-pair test stops at $L - 1$; read
#: r200: the reason shortened to "training's largest distance, $L - 1$", which the row's turn is counted over)
FAST_ROW_INEQUALITY = r"over training's largest distance, \$L - 1\$: \$([^$]+)\$\."
#: the fast pair row's sentence after its inequality (fix pass 266, read r265 #1, overstated: "go all the way round"
#: read as every angle; training shows a grid of angles at most theta_i apart, the block's words)
FAST_ROW_ROUND = r" Its trained angles then go all the way round the circle, at most \$\\theta_i\$ apart"
#: the lesson that opens "Longer inputs", before any term or letter it needs (read r199: five close terms, the extension
#: factor, the stretch, the effective factor, fast and slow pairs and turns in L, met the learner with nothing saying
#: how they fit): by how much the rules divide, set by the configuration or the input, and which pairs some keep
#: read r203: the story in plain words first, no term before its definition: the pairs that turn less than once over a
#: training input, the new angles a long input would bring, and what most rules do about it
LONGER_LESSON = (
    # fix pass 240 (read r239 #2: slow pairs exist in encoders too; the decoder only makes the distances one-way, which
    # the slow pair's paragraph says)
    # fix pass 285 (reads r280a #2 and r280b #1): "over a model's trained length", no count that could be L - 1
    "Some of RoPE's pairs turn less than once over a model's trained length. A long enough input would turn them"
    " past the angles training showed. Most rules for longer inputs divide these pairs' frequencies, so that far keys"
    " get angles seen in training."
)
#: the slow pair row's meaning, with the same reason for $L - 1$ as the fast pair row's (read r199; read r200: shortened
#: to "training's largest distance, $L - 1$", as in the fast pair row)
SLOW_ROW_MEANING = "| a pair that turns less than once over training's largest distance, $L - 1$ |"
#: the fastest-pair table's YaRN row (read r260b #3 asked for the attention factor here; it stays out: the costs block
#: names it, and the example's main line comes before the term's row, a recorded decision)
YARN_FASTEST_ROW = "| *YaRN* | *keeps* it |"
#: the fastest-pair table's position interpolation row: what PI's slowing of pair 0 does
PI_FASTEST_ROW = (
    "| *position interpolation* | divides its frequency by 8, so a key $r$ positions back gets the angle of a key $r/8$"
    " back |"
)
#: the distance row, its definition alone (read r199: the caveat on chapters 3 and 5, which the block right under the
#: table gives, ended the row too; read r191 to r192 had put it there; the block, :data:`DISTANCE_BLOCK`, names the
#: chapters that use the word for the signed offset, and their letters)
DISTANCE_ROW = (
    # fix pass 268 (read r267b #1, unclear: "never negative" and, in the same cell, the chapters' signed use read as a
    # row contradicting itself): the definition alone again; the block and the Letters table keep the exception
    r"^\| distance \| 距离 \| how far a key lies from its query, \$\\lvert n - m\\rvert\$, never (negative) \| \{doc\}"
)
#: the block under the Core table, "Offset and distance in other chapters" (read r192: its old "Chapter 3 uses
#: *distance* for the offset's size too" read as contradicting the row until the Letters table): the row's signed use in
#: the row's own words, each chapter's letter, then chapter 3's unsigned use and chapter 5's missing word "offset"
DISTANCE_BLOCK = (
    r"Chapters (\d+) and (\d+) also use the word \*distance\* for the signed offset: chapter (\d+) writes it"
    r" \$([^$]+)\$,"
    r" chapter (\d+) writes it \$(\w)\$\. Chapter (\d+) also uses the word for the offset's size, as this page does\."
    r" Chapter (\d+) never says offset, so the offset row does not link it\. Each chapter's letters for both are in"
    r" \{ref\}`Letters <glossary-letters>`\."
)
#: the opening of "Temperature and query scales" (read r191: its lesson first, which scales divide the logits and which
#: multiply them, the clash of Llama 4's query temperature with the word being the block's; and why the fourth column's
#: multiplier of q . k is also the logit's; read r192: exact, the attention factor multiplies cos and sin, which
#: multiplies q . k by its square only in a fully rotated head; read r197: the two exceptions each in a sentence of its
#: own, no "that" with two antecedents, and "each changes ... by the same factor", which a divisor also does)
SCALES_OPENING = (
    # read r198: the table's own column says the number for every row, the temperature's too (1/t); read r199: plain
    # sentences, the lesson first (every scale multiplies q . k, and above 1 sharpens), then the column by its place,
    # "multiplies" for every scale, the temperature's 1/t included, and YaRN's factor on both q and k, so its square;
    # read r200: "the top-scoring key", one key (only the top key's weight is sure to grow: other high-scoring keys can
    # lose weight); the sentence on the fourth column, which its header names, left the main line; and Llama 4's query
    # temperature, a temperature by name that multiplies by tau itself, the trap most likely to mislead, gets one
    # main-line sentence right after the temperature's 1/t (its details stay in :data:`WORD_BLOCK`)
    # read r203: the lesson first, every row is one multiplier of q . k, and where the table gives it; read r220: one
    # rule, a larger multiplier sharpens, and the word temperature for the divisor alone (Llama 4's tau multiplies
    # "despite its name"); groups: the rule's size word and direction, the top key and its share, the temperature's
    # multiplier and the direction of a smaller t, then tau's direction and the attention factor's power; read r222:
    # not "Only a temperature divides", as the softmax scale divides by sqrt(d) too
    # fix pass 266 (reads r265 #2 and r265b #1, unclear: the column was named twice before the table): the column by
    # its place in the rule's sentence below, not here
    # fix pass 268 (read r267 #1, overstated: with a bias added to the logit, as ALiBi's or T5's, or a soft-cap after
    # the scale, as Gemma 2's, a larger multiplier can flatten attention): the rule narrowed to a logit that is q . k
    # times the multipliers alone (checked in test_a_larger_multiplier_sharpens_only_a_logit_of_multipliers_alone)
    # fix pass 274 (reads r271a #6 and r271b #5, unclear: "one multiplier of q . k" for every row, though the attention
    # factor's row and block give conditions without which no single multiplier exists): multiplies or divides, and
    # the attention factor only under its row's conditions (checked in
    # test_attention_factor_multiplies_the_logits_by_its_square_in_a_fully_rotated_head)
    # fix pass 275 (read r272b #4, unclear: the rows and the attention factor's conditions came before the one idea):
    # the idea first, its scope in the same sentence, "its multipliers" as no row has been met yet; then the rows
    # fix pass 276 (reads r273a #2 and r273b #1, unclear: "where the logit is q . k times its multipliers alone" did
    # not say the condition in words): "as long as nothing else, such as an added bias or a soft-cap, acts on the
    # logit", checked against T5's bias and Gemma 2's soft-cap in
    # test_a_larger_multiplier_sharpens_only_a_logit_of_multipliers_alone
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: two caveats came before the section's one idea): the idea
    # first, each row's multiplier and what a larger one does; the scope (no bias, no soft-cap), the attention factor's
    # conditions and the compounding moved to the block :data:`SCALES_CAVEATS` under the table
    # fix pass 281 (read r277a #4, unclear: the table set 1/t, a^2 and tau beside 1/sqrt(d), as if instead of it): the
    # later rows multiply on top of the first (the block's compounding bullet, checked in
    # test_scales_compound_on_the_softmax_scale); (read r277b #1, overstated: a bias or a soft-cap can make a larger
    # multiplier flatten) the rule's scope in the sentence itself, "When nothing else acts on the logit" (checked in
    # test_a_larger_multiplier_sharpens_only_a_logit_of_multipliers_alone); the clause sending the reader to the
    # fourth column went, as its header already says what it holds (main line kept at its length)
    r"Each row below gives a multiplier of \$q \\cdot k\$ before the softmax\. The later rows multiply on top of the"
    r" first, usually \$1/\\sqrt d\$\. When nothing else acts on the logit, a (larger|smaller) multiplier"
    r" (sharpens|flattens) attention: the top-scoring (key gets|keys get) (more|less) of the weight\."
    r" A name can point the wrong way: a \*temperature\* \$t\$ (divides|multiplies)"
    r" \$q \\cdot k\$, but Llama 4's \*query temperature\* \$\\tau\$ (multiplies|divides) it\."
)

#: the block under the scales table (fix pass 280, reads r276a #4 and r276b #2): the opening's former caveats, the
#: scope of its rule, the attention factor's conditions and the compounding, each a bullet, words unchanged
SCALES_CAVEATS = (
    # fix pass 268 and fix pass 276: the rule's scope in words, checked against T5's bias and Gemma 2's soft-cap in
    # test_a_larger_multiplier_sharpens_only_a_logit_of_multipliers_alone
    "- A larger multiplier of $q \\cdot k$ sharpens attention as long as nothing else, such as an added bias or a"
    " soft-cap, acts on the logit."
    # fix pass 274 (reads r271a #6 and r271b #5): the attention factor only under its row's conditions (checked in
    # test_attention_factor_multiplies_the_logits_by_its_square_in_a_fully_rotated_head)
    " - The *attention factor* multiplies the logits only under the conditions its row gives."
    # fix pass 235 (read r234 #2) and fix pass 241 (read r240 #4): the compounding, checked in
    # test_scales_compound_on_the_softmax_scale
    " - The multipliers compound: the *softmax scale*, usually $1/\\sqrt d$, applies to every logit, and the others,"
    " where a model has them, multiply on top of it."
)
SCALES_CAVEATS_SUMMARY = "When a larger multiplier sharpens, and how the multipliers combine"

#: the collapsed block of "Words of chapter 8's experiment" (fix pass 280, reads r276a #3 and r276b #4, unclear: the
#: per-seed fact sat on the main line and did not say it held at 8L only): it now holds the grades seed by seed
C8_BLOCK = "The 28 tokens, the fine-tuned runs, and the grades seed by seed"

#: the chapters' i and j, once a main-line sentence (read r201), now said by the collapsed letters table alone (read
#: r220: a notation caveat opened the section, and the block just below said the same)
CHAPTERS_IJ = "Chapters 1, 3, 6, 8 and 11 write $i$ and $j$ for the query's and the key's positions instead."
#: the block's $i$ row, which holds the same chapters and the same letters
CHAPTERS_IJ_BLOCK = "| a query's position in chapters 1, 3, 6, 8 and 11, where $j$ is the key's |"
#: the collapsed block on YaRN's and LongRoPE's factors, under the scales table: the formula, where the square holds
#: (fix pass 264: the main line's conditions moved here), LongRoPE's factor and the names in code; fix pass 266 (reads
#: r265 #2 and r265b #1): the example at s = 8 back here, after the formula
YARN_FACTORS = "YaRN's and LongRoPE's attention factors, their names in code, and partial rotary heads"
#: the collapsed block right under the scales table: the word "temperature" in the chapters and in Llama 4's code (read
#: r191: the clash sentence was an aside on the main line under the table; its "Where sources differ" block holds it)
WORD_BLOCK = "Where the word temperature differs"
#: the main line's sentence on why the decoder is the scope: its keys sit on one side of the query
ONE_SIDED_ARC = (
    # read r198: the decoder sets the one-sided range of distances (offsets, key - query, are never positive there);
    # the arc follows from turning less than once over it; read r199: two sentences, "0 to $L - 1$" said once, before
    # fix pass 258: one sentence, the decoder's scope kept (fix pass 240: slow pairs exist in encoders too, whose
    # offsets run both ways, so there a slow pair's trained angles need not stay on one arc)
    "In a decoder, whose keys sit at or behind their query, training then showed it only one arc of its circle."
)


def example_section(raw: str) -> str:
    """The subsection :data:`EXAMPLE`, from its heading up to the label of "Terms for longer inputs", the A to Z table
    that follows it (read r201: the subsection that ties the longer-input terms together came after the rows that use
    it; it now sits right under the three numbers' table, before those rows)."""
    return raw[raw.index(f"\n{EXAMPLE}\n") + 1 : raw.index("(glossary-longer-terms)=")]


def page() -> str:
    """The glossary, every run of whitespace one space."""
    return re.sub(r"\s+", " ", (ROOT / "book" / "glossary.md").read_text(encoding="utf-8"))


def row(term: str) -> str:
    """The term tables' row whose first cell is ``term``, whitespace as in :func:`page`. The Letters section's table,
    which :func:`letters` reads, is left out: a word can have a row in both (fix pass 230: *score* and *logit*)."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    raw = raw[: raw.index("(glossary-letters)=")] + raw[raw.index("(glossary-papers)=") :]
    lines = raw.splitlines()
    found = [line for line in lines if line.startswith(f"| {term} |")]
    assert len(found) == 1, (term, len(found))
    return re.sub(r"\s+", " ", found[0])


def cells(term: str) -> list[str]:
    """The cells of :func:`row`'s row for ``term``, stripped."""
    return [
        cell.strip()
        for cell in re.split(r"(?<!\\)\|", re.sub(r"`[^`]*`", lambda m: m[0].replace("|", " "), row(term)))[1:-1]
    ]


def _block_row(start: str, first_cell: str) -> str:
    """The row whose first cell is ``first_cell`` in the collapsed block that begins at ``start``; it must be there
    exactly once. Whitespace as in :func:`page`."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    block = raw[raw.index(start) :]
    block = block[: block.index("</details>")]
    found = [line for line in block.splitlines() if line.startswith(f"| {first_cell} |")]
    assert len(found) == 1, (first_cell, len(found))
    return re.sub(r"\s+", " ", found[0])


def block(summary: str) -> str:
    """The text of the collapsed block whose summary is ``summary``, whitespace as in :func:`page`; it must be there
    exactly once."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    opening = f"<details><summary>{summary}</summary>"
    assert raw.count(opening) == 1, summary
    text = raw[raw.index(opening) + len(opening) :]
    return re.sub(r"\s+", " ", text[: text.index("</details>")]).strip()


def models_block(heading: str) -> str:
    """The collapsed block "In models and code" of the section that opens at ``heading``: it must sit in that section,
    before the next heading, exactly once. Whitespace as in :func:`page`."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index(f"\n{heading}\n") + len(heading) + 2 :]
    section = section[: section.index("\n#")] if "\n#" in section else section
    opening = "<details><summary>In models and code</summary>"
    assert section.count(opening) == 1, heading
    text = section[section.index(opening) + len(opening) :]
    return re.sub(r"\s+", " ", text[: text.index("</details>")]).strip()


def note(term: str) -> str:
    """The row of the collapsed block "Where papers and code differ" whose first cell is ``*term*``."""
    return _block_row("## Where papers and code differ", f"*{term}*")


def letters(term: str) -> str:
    """The row of the Letters section's one table whose first cell is ``term``; it must be there exactly once.
    Whitespace as in :func:`page`."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("(glossary-letters)=") : raw.index("(glossary-papers)=")]
    found = [line for line in section.splitlines() if line.startswith(f"| {term} |")]
    assert len(found) == 1, (term, len(found))
    return re.sub(r"\s+", " ", found[0])


def braced(text: str, start: int) -> str:
    """The contents of the balanced ``{...}`` group that opens at ``text[start]``."""
    assert text[start] == "{", text[start : start + 20]
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[start + 1 : end]
    raise AssertionError(f"unbalanced braces in {text[start : start + 40]!r}")


def exponent(text: str, before: str) -> str:
    """The exponent the page writes right after ``before``, as in ``b^{-2i/d}``: ``before`` ends with ``^``."""
    at = text.index(before) + len(before)
    return braced(text, at)


def evaluate(tex: str, **names: float):
    """The value of a small LaTeX expression (implicit products, ``\\,``, ``\\theta_i``, ``\\lambda_i``, ``\\ell``,
    ``\\pi``, ``\\max``, ``\\ge``, and ``d_{\\text{model}}`` and ``d_{\\text{rot}}`` read as the names ``dmodel`` and
    ``drot``) for the given names: a name the caller does not give fails."""
    text = tex.replace("\\,", " ").replace("\\theta_i", " theta ").replace("\\pi", " pi ")
    text = text.replace("\\lambda_i", " lam ").replace("\\ell", " ell ").replace("\\max", " max ")
    text = text.replace("\\ge", " >= ").replace("\\le", " <= ").replace("\u2212", "-")
    text = re.sub(r"d_\{\\text\{(model|rot)\}\}", r" d\1 ", text).replace("{", "(").replace("}", ")")
    tokens = re.findall(r"\d+(?:\.\d+)?|[A-Za-z]+|>=|<=|[-+*/()^]|\S", text)
    allowed = set(names) | {"pi", "max"}
    out = []
    for token in tokens:
        operand = re.fullmatch(r"\d+(?:\.\d+)?|[A-Za-z]+", token) is not None
        if operand and not token[0].isdigit():
            assert token in allowed, f"{token!r} in {tex!r}"
        assert operand or token in {">=", "<=", "-", "+", "*", "/", "(", ")", "^", ","}, f"{token!r} in {tex!r}"
        after_value = out and (re.fullmatch(r"[\w.]+", out[-1]) or out[-1] == ")") and out[-1] != "max"
        if (operand or token == "(") and after_value:
            out.append("*")  # an implicit product: 2i, (L - 1)theta, 2pi
        out.append("**" if token == "^" else token)
    return eval(" ".join(out), {"__builtins__": {}}, {"pi": math.pi, "max": max, **names})  # noqa: S307 (checked tokens)


def llama31_head() -> tuple[int, float, int, float]:
    """Llama 3.1's head width, base, trained length and `factor`, from posenc/book/models.py's copy of its config (a
    prose sync: the only offline source), each also read from the page's words that restate it: the worked example's
    "width $d = 128$" and "base half a million", its "$L = 8192$", and the main line's "Take a head like Llama 3.1's,
    with `factor` 8"."""
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    scaling = llama["rope_scaling"]
    d, base = llama["head_dim"], llama["rope_theta"]
    L, s = scaling["original_max_position_embeddings"], scaling["factor"]
    text = page()
    ((width, pairs, words),) = re.findall(
        r"Take a head like Llama 3\.1's: width \$d = (\d+)\$, so (\d+) pairs, and base ([a-z ]+)\. Each rule", text
    )
    assert int(width) == d and int(pairs) == d // 2, (width, pairs)
    assert {"half a million": 500_000.0, "a million": 1_000_000.0}[words] == base, words
    (example,) = re.findall(r"an input of \$2L\$ tokens, with \$L = (\d+)\$, Llama 3\.1's trained length\.", text)
    (factor,) = re.findall(r"Give that head a `factor` of (\d+)\. All three rules", text)  # fix pass 236
    assert int(example) == L == llama["trained_length_before"], example
    assert float(factor) == s, factor
    return d, base, L, s


def hf_llama3(d: int, base: float, factor: float, high: float, low: float, trained: int) -> torch.Tensor:
    """transformers' own `llama3` frequencies (:func:`hf_inv_freq`)."""
    return hf_inv_freq(
        d,
        rope_type="llama3",
        rope_theta=base,
        factor=factor,
        high_freq_factor=high,
        low_freq_factor=low,
        original_max_position_embeddings=trained,
    )


def pair_divisors(width, base, length, fast, slow, trunc=True, factor=8.0):
    """Each pair's divisor under transformers' `yarn` (:func:`hf_inv_freq`): RoPE's frequency over the scaled one, in
    float64 (review of the change: one helper for the `truncate` sweeps and the exact-bounds check, which had each
    written the same call)."""
    own = posenc.rope_inv_freq(width, base, dtype=torch.float64)
    yarn = hf_inv_freq(
        width,
        max_position_embeddings=int(length * factor),
        rope_type="yarn",
        rope_theta=base,
        factor=factor,
        original_max_position_embeddings=length,
        beta_fast=fast,
        beta_slow=slow,
        truncate=trunc,
    ).double()
    return own / yarn


def test_evaluate_reads_the_pages_forms():
    assert evaluate("-2i/d", i=3, d=8) == -0.75
    assert evaluate("d/(d-2)", d=10) == 1.25
    assert evaluate("-2i/d_{\\text{model}}", i=1, dmodel=4) == -0.5
    assert evaluate("-2i/d_{\\text{rot}}", i=1, drot=8) == -0.25
    with pytest.raises(AssertionError):
        evaluate("-2i/d_{\\text{rot}}", i=1, d=8)  # a width the caller does not name
    assert evaluate("(L - 1)\\,\\theta_i \\ge 2\\pi", L=8, theta=1.0) is True
    assert evaluate("(L - 1)\\,\\theta_i \\ge 2\\pi", L=7, theta=1.0) is False
    assert evaluate("\\max(\\ell/L, 1)", ell=3, L=4) == 1 and evaluate("2\\max(\\ell/L, 1)", ell=8, L=4) == 4
    assert evaluate("L/\\lambda_i", L=8, lam=2) == 4


# ---- frequencies: theta_i's exponent in the RoPE, sinusoidal, partial rotary and p-RoPE rows ------------------


def test_ropes_frequency_exponent_is_the_codes():
    """The page: "RoPE sets $\\theta_i = b^{-2i/d}$": posenc's and transformers' frequencies, over widths and bases."""
    power = exponent(row("frequency"), "RoPE sets $\\theta_i = b^")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    for d in (8, 64, 128):
        for b in (10_000.0, 500_000.0):
            ours = torch.tensor([b ** evaluate(power, i=i, d=d) for i in range(d // 2)], dtype=torch.float64)
            assert torch.allclose(posenc.rope_inv_freq(d, b, dtype=torch.float64), ours, rtol=1e-12, atol=0), (d, b)
            cfg = transformers.LlamaConfig(
                hidden_size=2 * d,
                num_attention_heads=2,
                head_dim=d,
                rope_parameters={"rope_type": "default", "rope_theta": b},
            )
            hf, _ = LlamaRotaryEmbedding.compute_default_rope_parameters(cfg)
            assert torch.allclose(hf.double(), ours, rtol=1e-6, atol=0), (d, b)  # float32 frequencies


def test_sinusoidal_rows_formula_is_posencs_table():
    """The page: "coordinates $2i$ and $2i + 1$ of position $p$ are $\\sin(p\\,\\theta_i)$ and $\\cos(p\\,\\theta_i)$,
    with $\\theta_i = 10\\,000^{-2i/d_{\\text{model}}}$": posenc's sinusoidal table, entry by entry."""
    text = row("sinusoidal encoding")
    assert "coordinates $2i$ and $2i + 1$ of position $p$ are $\\sin(p\\,\\theta_i)$ and $\\cos(p\\,\\theta_i)$" in text
    (base,) = re.findall(r"\\theta_i = ([\d\\,]+)\^", text)
    base = float(base.replace("\\,", ""))
    power = exponent(text, f"$\\theta_i = {base:,.0f}^".replace(",", "\\,"))
    for d in (4, 16, 64):
        table = posenc.sinusoidal_encoding(50, d, dtype=torch.float64)
        p = torch.arange(50, dtype=torch.float64)[:, None]
        theta = torch.tensor([base ** evaluate(power, i=i, dmodel=d) for i in range(d // 2)], dtype=torch.float64)
        assert torch.allclose(table[:, 0::2], torch.sin(p * theta), atol=1e-12, rtol=0), d
        assert torch.allclose(table[:, 1::2], torch.cos(p * theta), atol=1e-12, rtol=0), d


def test_partial_rotary_and_p_rope_frequencies():
    """Partial rotary "$b^{-2i/d_{\\text{rot}}}$" against p-RoPE's full-width "$b^{-2i/d}$", in transformers: GPT-NeoX's
    default rule spaces the frequencies over the rotated part; `proportional` reads p-RoPE's share from the same field,
    `partial_rotary_factor`, keeps the full-width frequencies and sets the other pairs' to zero. The Encodings block "In
    models and code" says where the share is set, and that Gemma 4's global layers use `proportional` (transformers'
    Gemma4TextConfig default)."""
    from transformers.modeling_rope_utils import _compute_proportional_rope_parameters
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

    partial, prope = row("partial rotary"), row("p-RoPE, proportional RoPE")
    own = exponent(partial, "frequencies of its own, $b^")
    full = exponent(prope, "at the full-width frequencies $b^")
    assert "*p-RoPE* keeps the full-width frequencies instead |" in partial
    assert "`partial_rotary_factor`" not in partial  # the row holds the definition, the block the field
    # fix pass 240 (read r239 #7, an omission: the row named no current model): transformers 5.24's defaults, which
    # chapter 10's table gives as the released models' shares
    assert "Qwen3-Next turns a quarter of each head, GLM-4.5 half." in partial
    qwen3_next = transformers.Qwen3NextConfig().rope_parameters
    glm45 = transformers.Glm4MoeConfig().rope_parameters
    assert qwen3_next["partial_rotary_factor"] == 0.25 and glm45["partial_rotary_factor"] == 0.5  # set in the file
    assert qwen3_next["rope_type"] == glm45["rope_type"] == "default"  # frequencies spaced over the rotated part
    c10 = chapter("10_rope_today")
    assert "| GLM-4.5 | `partial_rotary_factor` | 0.5 | half of the head |" in c10
    assert "| Qwen3-Next | `partial_rotary_factor` | 0.25 | 64 of 256 |" in c10
    assert (
        "- A config sets a *partial rotary* head's share with `partial_rotary_factor`. Transformers' `proportional`"
        " type, its form of *p-RoPE*, reads p-RoPE's share from the same field. Gemma 4's global layers use it: see"
        " {ref}`Reading model code <glossary-fields>`." in models_block("## Encodings")
    )
    gemma4 = transformers.Gemma4TextConfig().rope_parameters["full_attention"]
    assert gemma4["rope_type"] == "proportional" and 0 < gemma4["partial_rotary_factor"] < 1, gemma4
    d, b = 128, 1e6
    for share in (0.25, 0.5):
        params = {"rope_theta": b, "partial_rotary_factor": share}
        neox = transformers.GPTNeoXConfig(
            hidden_size=2 * d, num_attention_heads=2, rope_parameters={"rope_type": "default", **params}
        )
        rotated, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(neox)
        d_rot = int(d * share)
        expected = torch.tensor([b ** evaluate(own, i=i, drot=d_rot) for i in range(d_rot // 2)], dtype=torch.float64)
        assert torch.allclose(rotated.double(), expected, rtol=1e-6, atol=0), share
        cfg = transformers.LlamaConfig(
            hidden_size=2 * d,
            num_attention_heads=2,
            head_dim=d,
            rope_parameters={"rope_type": "proportional", **params},
        )
        prop, _ = _compute_proportional_rope_parameters(cfg, "cpu")
        turning = int(share * d // 2)
        expected = torch.tensor([b ** evaluate(full, i=i, d=d) for i in range(turning)], dtype=torch.float64)
        assert torch.allclose(prop[:turning].double(), expected, rtol=1e-6, atol=0), share
        assert prop.numel() == d // 2 and (prop[turning:] == 0).all(), share  # the other pairs: frequency zero
        # "only the fastest share of the pairs turn": every turning pair's frequency is above every other pair's
        (which,) = re.findall(r"only the (\w+) share of the pairs turn", prope)
        full_width = torch.tensor([b ** evaluate(full, i=i, d=d) for i in range(d // 2)], dtype=torch.float64)
        assert which == "fastest" and full_width[:turning].min() > full_width[turning:].max(), (which, share)


# ---- the base row, NTK-aware scaling and the fast pairs ----------------------------------------------------------


def test_base_row_roformer_and_llama_3():
    """The Core block "In models and code": "The base is 10 000 in RoFormer and 500 000 in Llama 3". RoFormer's from
    transformers' RoFormer table; Llama 3's from posenc/book/models.py's copy of its config (a prose sync) and chapter
    7's words."""
    from transformers.models.roformer.modeling_roformer import RoFormerSinusoidalPositionalEmbedding

    (roformer, llama) = re.findall(
        r"The base is ([\d ]+) in RoFormer and ([\d ]+) in Llama 3\.", models_block("## Core terms")
    )[0]
    roformer, llama = float(roformer.replace(" ", "")), float(llama.replace(" ", ""))
    n, dim = 40, 16
    table = RoFormerSinusoidalPositionalEmbedding(n, dim).create_weight().double()
    theta = roformer ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    p = torch.arange(n, dtype=torch.float64)[:, None]
    assert torch.allclose(table[:, : dim // 2], torch.sin(p * theta), atol=1e-6, rtol=0)  # float32 table
    assert torch.allclose(table[:, dim // 2 :], torch.cos(p * theta), atol=1e-6, rtol=0)
    assert MODEL_ROPE_CONFIGS["llama-3-8b"]["rope_theta"] == llama == 500_000
    assert "Llama 3's case: a base of 500 000 from the start" in chapter("07_beyond")


def test_ntk_aware_base_keeps_the_fastest_pair_and_divides_the_slowest_by_s():
    """The row: "enlarges RoPE's base to $b\\,s^{d/(d-2)}$", and its section's block "In models and code": "*NTK-aware
    scaling*'s base keeps the fastest pair and divides the slowest by $s$", and transformers' `dynamic`, whose base at
    an effective factor S is b S^(d/(d-2)), gives the same frequencies."""

    text = row("NTK-aware scaling")
    assert "the fastest pair is kept" not in text  # the row is one definition; the claim is the block's
    assert "- *NTK-aware scaling*'s base keeps the fastest pair and divides the slowest by $s$." in models_block(
        "### Terms for longer inputs"
    )
    power = exponent(text, "enlarges RoPE's base to $b\\,s^")
    L = 1024
    for d in (16, 64, 128):
        for b in (10_000.0, 500_000.0):
            theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
            for s in (2.0, 8.0, 40.0):
                raised = (b * s ** evaluate(power, d=d)) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
                ratio = theta / raised
                assert ratio[0] == 1 and abs(ratio[-1] - s) < 1e-9 * s, (d, b, s, float(ratio[-1]))
                # transformers' dynamic with factor 1 at s L tokens: effective factor 1 * s L / L - 0 = s
                hf = hf_dynamic_ntk_freqs(d, b, L, int(s * L))
                assert torch.allclose(hf.double(), raised, rtol=1e-5, atol=0), (d, b, s)  # float32 frequencies


def test_fast_pair_condition_is_a_full_turn_over_trainings_offsets():
    """The page: "a pair that turns at least once over training's largest distance, $L - 1$:
    $(L - 1)\\,\\theta_i \\ge 2\\pi$": the pairs the page's inequality picks are those whose angle, read back from
    posenc's cos and sin tables at positions 0 to L - 1, sweeps a full turn. The sweep includes pairs for which L
    theta_i >= 2 pi > (L - 1) theta_i, so writing L for L - 1 fails too."""
    text = row("fast pair")
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND, text)
    # read r199, shortened in read r200: "training's largest distance, $L - 1$", in the fast and the slow pair rows:
    # the largest distance between two of L positions, 0 to L - 1, is L - 1 (the turns in L row counts over L
    # positions)
    assert "over training's largest distance, $L - 1$ |" in row("slow pair")
    for L in (1, 7, 64, 8192):
        positions = torch.arange(L)
        assert int((positions[:, None] - positions[None, :]).abs().max()) == L - 1, L
    assert "pair $i$ makes over $L$ positions, $L/\\lambda_i$" in row("turns in $L$")
    boundary = 0
    for d in (8, 16, 32):
        for b in (10.0, 100.0, 10_000.0):
            for L in (7, 16, 50, 64, 100):
                theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
                cos, sin = posenc.rope_cos_sin(L, d, b, layout="half", dtype=torch.float64)
                angle = torch.atan2(sin[:, : d // 2], cos[:, : d // 2])  # [L, d/2], wrapped to (-pi, pi]
                step = torch.remainder(angle[1:] - angle[:-1], 2 * math.pi)  # each step is theta_i < pi: unwrap
                swept = step.sum(0)  # the angle at position L - 1, unwrapped
                for i in range(d // 2):
                    if abs(float(swept[i]) - 2 * math.pi) < 1e-9:
                        continue  # a tie: no test of the inequality's direction
                    page_says = evaluate(inequality, L=L, theta=float(theta[i]))
                    assert page_says == (float(swept[i]) >= 2 * math.pi), (d, b, L, i, float(swept[i]))
                    boundary += L * float(theta[i]) >= 2 * math.pi > (L - 1) * float(theta[i])
    assert boundary > 0  # L theta_i and (L - 1) theta_i disagree on some pair swept


def test_fast_pairs_trained_angles_go_all_the_way_round():
    """The row "fast pair": "$(L - 1)\\,\\theta_i \\ge 2\\pi$. Its trained angles then go all the way round the
    circle, at most $\\theta_i$ apart", the block "Turns in L and the fast pairs' distances": "A fast pair's trained
    angles go all the way round the circle, at most $\\theta_i$ apart" (read r186: the row's precise gap moved to the
    block, the row keeps the definition; fix pass 266, read r265 #1: the row and the main line,
    :data:`FASTEST_PAIR_LINES`, say the gap too, as "all the way round" alone read as every angle): for
    every pair the row's inequality calls fast, its angles at the trained distances 0 to L - 1, wrapped onto the circle
    and sorted, leave no gap wider than theta_i (the wrap-around gap included), in small heads and in Llama 3.1's."""
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND + r" \|", row("fast pair"))
    (step,) = re.findall(
        r"A fast pair's trained angles go all the way round the circle, at most \$(\\theta_i)\$ apart\.",
        block("Turns in L and the fast pairs' distances"),
    )
    assert step == "\\theta_i"
    # fix pass 266 (read r265 #1, overstated): the main line's "so its trained angles go all the way round the circle,
    # at most $\theta_i$ apart", the same step as the block's and the row's, checked by the sweep below
    # fix pass 285 (reads r280a #2 and r280b #1): the main line counts "at least once in $L$", L theta_i >= 2 pi,
    # not the row's L - 1; the sweep below checks the gap under that count too, and the slow pair's one arc
    # fix pass 286 (reads r281a #1 and r281b #1): the main line counts as the row does, "at least once over them", the
    # distances 0 to L - 1 of :data:`SLOW_PAIR_CLAUSE`; the sweep below checks both counts
    (main_step,) = re.findall(
        r"A \*fast pair\* turns at least once over them, so its trained angles go all the way round the circle, at"
        r" most \$(\\theta_i)\$ apart\.",
        " ".join(page().split()),
    )
    assert main_step == step and FASTEST_PAIR_LINES in page() and "showed it the whole circle" not in page()
    heads = [(d, b, L) for d in (8, 16, 32) for b in (10.0, 100.0, 10_000.0) for L in (7, 16, 50, 64)]
    d31, b31, L31, _ = llama31_head()
    fast_seen = 0
    for d, b, L in heads + [(d31, b31, L31)]:
        theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
        for t in theta.tolist():
            angles = torch.sort(torch.remainder(torch.arange(L, dtype=torch.float64) * t, 2 * math.pi)).values
            gaps = torch.cat((angles.diff(), (angles[:1] + 2 * math.pi) - angles[-1:]))  # around the circle
            if evaluate(inequality, L=L, theta=t):
                assert float(gaps.max()) <= t + 1e-9, (d, b, L, t, float(gaps.max()))
                fast_seen += 1
            if L * t >= 2 * math.pi:  # the code's count, turns in L: at least one turn in L
                assert float(gaps.max()) <= t + 1e-9, (d, b, L, t, float(gaps.max()))
            else:  # a slow pair by either count: its trained angles never pass a full turn, one arc
                assert (L - 1) * t < 2 * math.pi - t + 1e-9, (d, b, L, t)
    assert fast_seen > 40, fast_seen
    # fix pass 286: the slow pair over "the distances training showed, 0 to $L - 1$", the arange(L) offsets above
    assert "A *slow pair* turns less than once over the distances training showed, 0 to $L - 1$." in SLOW_PAIR_CLAUSE


def test_fast_pair_rows_two_counts_pick_the_same_pairs_but_at_a_boundary():
    """The block "Turns in L and the fast pairs' distances", :data:`FAST_PAIR_TWO_COUNTS`: "In symbols, a pair is fast
    when $(L - 1)\\,\\theta_i \\ge 2\\pi$ and turns at least once in $L$ when $L\\,\\theta_i \\ge 2\\pi$; the two
    pick the same pairs except in that boundary case" (read r197: the fast pair row's sentence moved here; its first
    inequality is the row's). In Llama 3.1's head (posenc's copy
    of its config) and in chapter 8's (the saved run's width, 16, and posenc's default base, as its RoPE models use),
    the row's two inequalities pick the same pairs, pairs 0 to 34 and pairs 0 to 2 (chapter 8's pair 2 turns only
    about 1.003 times over L - 1 distances: a near case that still agrees). Over a sweep of heads and lengths they
    differ in some, and then only by a pair that turns once in $L$ but not in $L - 1$: the boundary case."""
    (row_fast,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND + r" \|", row("fast pair"))
    turns = block("Turns in L and the fast pairs' distances")
    ((fast, once, same),) = re.findall(FAST_PAIR_TWO_COUNTS, turns)
    assert fast == row_fast and same == "same" and once != fast, (once, fast, row_fast)
    # "that boundary case": the block's sentence right before names it
    assert "They differ only for a pair that turns once in $L$ but not in $L - 1$. In symbols," in turns
    run = load_results("extrapolation", check=False)["config"]
    d8 = run["model"]["d_model"] // run["model"]["n_heads"]  # chapter 8's head width
    d31, b31, L31, _ = llama31_head()
    heads = {
        "Llama 3.1": (posenc.rope_inv_freq(d31, b31, dtype=torch.float64), L31, list(range(35))),
        "chapter 8": (posenc.rope_inv_freq(d8, dtype=torch.float64), run["train_length"], [0, 1, 2]),
    }
    for name, (theta, L, expected) in heads.items():
        by_fast = [i for i, th in enumerate(theta.tolist()) if evaluate(fast, L=L, theta=th)]
        by_once = [i for i, th in enumerate(theta.tolist()) if evaluate(once, L=L, theta=th)]
        assert by_fast == by_once == expected, (name, by_fast, by_once)
        # no pair within a part in a thousand of either threshold: the agreement is not a rounding accident
        assert float(((L - 1) * theta / (2 * math.pi) - 1).abs().min()) > 1e-3, name
        assert float((L * theta / (2 * math.pi) - 1).abs().min()) > 1e-3, name
    differ = 0
    sweep = [(w, b, n) for w in (16, 64, 128) for b in (1e2, 1e4, 5e5) for n in range(16, 2048, 37)]
    for width, base, L in sweep + [(16, 1e2, 20)]:  # the last: pair 2 turns once in 20 positions but not in 19
        theta = posenc.rope_inv_freq(width, base, dtype=torch.float64).tolist()
        by_fast = {i for i, th in enumerate(theta) if evaluate(fast, L=L, theta=th)}
        by_once = {i for i, th in enumerate(theta) if evaluate(once, L=L, theta=th)}
        extra = by_once - by_fast
        assert by_fast <= by_once and len(extra) <= 1, (width, base, L, extra)
        for i in extra:  # the boundary case: one turn in L, less than one in L - 1
            assert (L - 1) * theta[i] < 2 * math.pi <= L * theta[i], (width, base, L, i)
        differ += len(extra)
    assert differ > 0, differ


# ---- models: Llama 3.1's bounds, Gemma 3, Qwen3-VL, DeepSeek ------------------------------------------------------


def test_llama3_bounds_are_turns_in_l():
    """The row: "bounds `high_freq_factor` and `low_freq_factor` in *turns in $L$*", and the block "In models and code":
    "Llama 3.1 sets `llama3`'s bounds `high_freq_factor` and `low_freq_factor` to 4 and 1": the values
    against posenc/book/models.py's copy of Llama 3.1's config (a prose sync), and what they mean, from transformers'
    `llama3`: a pair turning more than `high_freq_factor` times in L is kept, one turning fewer than `low_freq_factor`
    times is divided by the factor."""

    assert "bounds `high_freq_factor` and `low_freq_factor` in *turns in $L$*, and no attention factor |" in row(
        "Llama 3.1 scaling (`llama3`)"
    )
    ((high, low),) = re.findall(
        r"- Llama 3\.1 sets `llama3`'s bounds `high_freq_factor` and `low_freq_factor` to (\d+) and (\d+)\.",
        models_block("### Terms for longer inputs"),
    )
    high, low = float(high), float(low)
    copied = MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]
    assert (copied["high_freq_factor"], copied["low_freq_factor"]) == (high, low), copied
    for d, b, L in ((128, 500_000.0, 8192), (64, 10_000.0, 4096), (128, 10_000.0, 2048)):
        scaled = hf_llama3(d, b, 8.0, high, low, L)
        theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        turns = L * theta / (2 * math.pi)
        divisor = theta / scaled.double()
        kept = torch.isclose(divisor, torch.ones_like(divisor), rtol=1e-5)
        divided = torch.isclose(divisor, torch.full_like(divisor, 8.0), rtol=1e-5)
        assert torch.equal(kept, turns > high) and torch.equal(divided, turns < low), (d, b, L)


def test_qwen3_vl_gives_its_slowest_pairs_to_time():
    """The page: "pairs dealt out in turn to the three axes, so each axis gets fast and slow ones; the few lowest
    frequencies all go to time": transformers' Qwen3-VL recomposition with its default `mrope_section`, [24, 20, 20]."""
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    text = row("interleaved M-RoPE")
    assert "pairs dealt out in turn to the three axes, so each axis gets fast and slow ones" in text
    # fix pass 280 (read r276a #6, omission: the row did not name the flag that Qwen3-VL's configs set): the flag,
    # which transformers 5.24 accepts in the rope parameters of Qwen3-VL and does not read, as its code always
    # interleaves (the block's bullet, checked here against the source)
    assert "; the few lowest frequencies all go to time; its config flag is `mrope_interleaved` |" in text
    import transformers.models.qwen3_vl.configuration_qwen3_vl as qwen3_vl_config
    import transformers.models.qwen3_vl.modeling_qwen3_vl as qwen3_vl_modeling

    assert '"mrope_interleaved"' in inspect.getsource(qwen3_vl_config)
    assert "mrope_interleaved" in qwen3_vl_config.Qwen3VLTextConfig.ignore_keys_at_rope_validation
    assert "mrope_interleaved" not in inspect.getsource(qwen3_vl_modeling)  # never read
    assert "interleaved" not in inspect.getsource(Qwen3VLTextRotaryEmbedding.recomposition_frequencies)  # no switch
    assert (
        "- Transformers 5.24 accepts `mrope_interleaved` in Qwen3-VL's rope parameters but does not read it: its"
        " Qwen3-VL code always interleaves." in models_block("## Encodings")
    )
    section = MODEL_ROPE_CONFIGS["qwen3-vl-8b"]["rope_scaling"]["mrope_section"]
    assert section == [24, 20, 20] and "[24, 20, 20]" in inspect.getsource(Qwen3VLTextRotaryEmbedding.__init__)
    pairs = sum(section)
    axes = torch.arange(3, dtype=torch.float32)[:, None, None].expand(3, 1, pairs).clone()  # axis id per pair
    holder = type("Holder", (), {"mrope_section": section})()
    owner = Qwen3VLTextRotaryEmbedding.recomposition_frequencies(holder, axes)[0, :pairs].long().tolist()
    # pairs count from the fastest (pair 0) to the slowest: a tail of pairs all given to time (axis 0)
    tail = next(i for i in range(pairs - 1, -1, -1) if owner[i] != 0) + 1
    assert 0 < pairs - tail <= 8 and owner[:tail] == [i % 3 for i in range(tail)], owner
    for axis in range(3):  # each axis gets fast and slow pairs: one in the fastest quarter, one in the slowest half
        mine = [i for i, a in enumerate(owner) if a == axis]
        assert min(mine) < pairs // 4 and max(mine) >= pairs // 2, (axis, mine)


def test_deepseek_v2_and_v3_not_v4_move_the_attention_factor_to_the_softmax_scale():
    """The block "Other models' query and logit scales": "DeepSeek-V2's and V3's configurations make the *attention
    factor* 1 and sharpen through the softmax scale instead. Each of their fields `mscale` and `mscale_all_dim` sets a
    factor $0.1\\,\\mu \\ln s + 1$ [...]. Cos and sin are multiplied by the first factor over the second, which is 1
    since the fields are equal. The softmax scale is multiplied by the second factor's square": with their `mscale`
    equal to `mscale_all_dim` (posenc/book/models.py's copies), transformers' YaRN puts 1 on cos and sin and the
    DeepSeek attention multiplies the softmax scale by the square of `mscale_all_dim`'s factor, more than 1; with
    unequal fields, transformers' YaRN puts the ratio of the two factors on cos and sin. DeepSeek-V4's port sets the
    attention factor to 1 and keeps the plain softmax scale, so the page must not say "DeepSeek's" unqualified."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as ds3
    from transformers.models.deepseek_v4 import configuration_deepseek_v4 as v4_config, modeling_deepseek_v4 as v4

    assert (
        "- DeepSeek-V2's and V3's configurations make the *attention factor* 1 and sharpen through the softmax scale"
        " instead" in block("Other models' query and logit scales")
    )
    assert "DeepSeek's configurations" not in page()
    assert (
        "Each of their fields `mscale` and `mscale_all_dim` sets a factor $0.1\\,\\mu \\ln s + 1$, with $\\mu$ the"
        " field's value. Cos and sin are multiplied by the first factor over the second, which is 1 since the fields"
        " are equal. The softmax scale is multiplied by the second factor's square: see"
        in block("Other models' query and logit scales")
    )

    def m(s: float, mu: float) -> float:
        """The page's factor $0.1\\,\\mu \\ln s + 1$."""
        return 0.1 * mu * math.log(s) + 1

    def hf_factor(s: float, mscale: float, mscale_all_dim: float, original: int = 4096) -> float:
        cfg = transformers.LlamaConfig(
            hidden_size=256,
            num_attention_heads=4,
            head_dim=64,
            rope_parameters={
                "rope_type": "yarn",
                "rope_theta": 10_000.0,
                "factor": s,
                "original_max_position_embeddings": original,
                "mscale": mscale,
                "mscale_all_dim": mscale_all_dim,
            },
        )
        return ROPE_INIT_FUNCTIONS["yarn"](cfg, "cpu")[1]

    for s, mu1, mu2 in ((40.0, 1.0, 0.5), (40.0, 0.707, 1.0), (16.0, 0.3, 0.9)):  # unequal fields: the ratio
        assert abs(hf_factor(s, mu1, mu2) - m(s, mu1) / m(s, mu2)) < 1e-12, (s, mu1, mu2)
    for attention in (ds3.DeepseekV3Attention.__init__,):  # the softmax scale goes through yarn_apply_mscale
        assert "self.scaling = yarn_apply_mscale(config.rope_parameters, self.qk_head_dim ** (-0.5))" in (
            inspect.getsource(attention)
        )
    for name in ("deepseek-v2", "deepseek-v3"):
        p = MODEL_ROPE_CONFIGS[name]["rope_scaling"]
        assert p["mscale"] == p["mscale_all_dim"], name  # "since the fields are equal"
        assert abs(hf_factor(p["factor"], p["mscale"], p["mscale_all_dim"]) - 1) < 1e-12, name
        scaled = ds3.yarn_apply_mscale(dict(p), 1.0)
        assert abs(scaled - m(p["factor"], p["mscale_all_dim"]) ** 2) < 1e-12, name  # "the second's square"
        original = p["original_max_position_embeddings"]
        assert hf_factor(p["factor"], p["mscale"], p["mscale_all_dim"], original) == 1.0, name  # equal fields: m/m
        rope = {"rope_type": "yarn", "factor": p["factor"], "mscale_all_dim": p["mscale_all_dim"]}
        assert ds3.yarn_apply_mscale(rope, 1.0) > 1, name  # the softmax scale grows: sharper attention
    assert 'compress.setdefault("attention_factor", 1.0)' in inspect.getsource(v4_config.DeepseekV4Config)
    attention = [c for n, c in inspect.getmembers(v4, inspect.isclass) if n.endswith("Attention")]
    scales = [re.findall(r"self\.scaling = (.+)", inspect.getsource(c.__init__)) for c in attention]
    assert any(s == ["self.head_dim**-0.5"] for s in scales), scales


# ---- temperature -----------------------------------------------------------------------------------------------


def test_a_larger_multiplier_never_flattens_attention():
    """The section's opening, one rule (read r186: three conventions met in one short passage; read r191: its lesson
    first; read r192: exact about the attention factor; read r198: the column's number for every row; read r199: plain
    sentences, one idea each; read r200: one top key, Llama 4's query temperature; read r203: every row one multiplier,
    and where; read r220: one rule, a larger multiplier sharpens, and the word temperature for the one divisor):
    :data:`SCALES_OPENING`, "Each row below is one multiplier of $q \\cdot k$ before the softmax, given in the column of
    that name. A larger multiplier sharpens attention: the top-scoring key gets more of the weight. A
    *temperature* $t$ divides $q \\cdot k$: its multiplier is $1/t$, so a smaller $t$ sharpens. Llama 4's *query
    temperature* $\\tau$ multiplies $q \\cdot k$ despite its name: a larger $\\tau$ sharpens. When RoPE rotates the
    whole head, YaRN's *attention factor* multiplies both $q$ and $k$, so $q \\cdot k$ is multiplied by its square." The
    block's
    bullet "Three
    scales change with the query: Llama 4's *query temperature* and *logn attention* follow its position, and
    *Scalable-Softmax* follows how many tokens it attends: its position plus 1 under a causal mask, fewer under a
    sliding window" (the three named where their count is, r177) (transformers 5.24's causal and sliding-window mask
    functions: each query at position p, counting from 0, attends p + 1 keys under the causal mask, and fewer once p
    reaches the window); the word clash (this page's temperature divides, Llama 4's query temperature multiplies) is
    said once, in the Letters table's temperature row:
    the three rows named are exactly those whose cell holds a position, a count of tokens or tau; the attention factor's
    row is the one with a scope, "in a fully rotated head", in its meaning (in a partial rotary head, the
    block's case, no single number scales the logit), which the opening names in its one scoped sentence; every other
    row's cell is one number for the query's position, with no scope, the query temperature's included, though it acts
    only in NoPE layers: the fourth column's heading, "multiplier of $q \\cdot k$", is that convention; every row of the
    table fills it with a formula; the temperature's cell is the one reciprocal, every other cell a multiplier, not one
    over something, and the query temperature's is $\\tau$ itself: the one word names a divisor in one row and a
    multiplier in another. "The top-scoring key gets more of the weight": over random logits, with and without ties,
    the weight of each key with the largest logit grows with the multiplier, and never shrinks; the singular is needed,
    as a second high-scoring key can lose weight (logits 5, 2.9 and ten zeros: doubling them cuts the second key's
    weight from about 0.10 to about 0.015). The entropy row, in the Maths table: its
    row's "Multiplying the logits by more than 1 never raises it": the entropy of softmax(c z) over random logits z
    never rises as c grows. The page has no row "logit factor", a name no chapter uses; the temperature row links
    Reading model code's temperature rules."""
    text = page()
    # fix pass 273 (reads r270a #5 and r270b #3): the names' sentence gives each name's verb, not its direction
    ((larger, direction, which, top, t_said, tau_said),) = re.findall(SCALES_OPENING, text)
    # the temperature's multiplier, 1/t: its row's cell, and its meaning "a number $t$ that divides the logits"
    # fix pass 266 (reads r265 #2 and r265b #1): the opening no longer restates 1/t; "the table's fourth column gives
    # it" (its place is test_temperature_section_opens_with_its_multiplier_table's), where the temperature's cell is 1/t
    # fix pass 281 (main line kept at its length): the opening no longer names the column; the fourth column's header
    # is "multiplier of $q \\cdot k$", and the temperature's cell there is 1/t
    assert cells("temperature (attention temperature)")[3] == "$1/t$"
    assert "| a number $t$ that divides the logits:" in row("temperature (attention temperature)")
    # the opening's second exception (read r192): the attention factor multiplies cos and sin, so q . k by its square,
    # the power of its row's cell, in a fully rotated head only (the partial rotary case is computed below)
    # fix pass 273 (reads r270a #5 and r270b #3): the power is the row's alone, no longer the opening's
    # fix pass 287 (read r282a #5, unclear: the condition in two cells): the scope is the meaning cell's alone
    assert cells("attention factor")[3] == "$a^2$, about 1.46 for YaRN at $s = 8$, as query and key both carry $a$"
    assert "in a fully rotated head with no *QK-norm* after the rotation" in cells("attention factor")[2]
    ((changing, first, second, by_tokens, plus, fewer),) = re.findall(
        r"- (\w+) of the table's scales change with the query: Llama 4's \*([\w ]+)\* and \*([\w ]+)\* follow its"
        r" position, and"
        r" \*([\w-]+)\* follows how many tokens it attends: its position plus (\d) under a causal mask, (fewer) under a"
        r" sliding window\.",
        block("Other models' query and logit scales"),
    )
    by_position = f"{first} and {second}"
    # the opening names the one scale that divides; its letter and the direction of its effect, "below 1 it sharpens",
    # are its row's alone (checked below against the cells)
    assert "A temperature $t$" not in text and "its row's multiplier is" not in text
    # the word clash: the Letters table's temperature row, this page's t divides, the chapters' scales multiply; the
    # scales table's cells agree (1/t and tau itself)
    assert "The word clashes" not in text
    ((t_verb, tau_verb),) = re.findall(
        r"^\| temperature \| a number \$t\$ that (divides|multiplies) the logits \| a (multiplier|divisor) of the"
        r" logits: in chapter 8,",
        letters("temperature"),
    )
    tau_verb = {"multiplier": "multiply", "divisor": "divide"}[tau_verb]
    # "a larger multiplier sharpens attention: the top-scoring key gets more of the weight" (fix pass 268: for a logit
    # that is q . k times the multipliers alone, as here): the softmax weight of a
    # key with the largest logit, over random logits with ties (integer quarters) and without (Gaussian), at
    # multipliers from 0.1 up, below 1 as well as above (a softmax scale 1/sqrt(d) is below 1): it grows, strictly
    # unless every logit is the same
    gen = torch.Generator().manual_seed(5)
    betas = torch.linspace(0.1, 6.0, 60, dtype=torch.float64)
    for trial in range(400):
        n_keys = int(torch.randint(2, 40, (1,), generator=gen))
        if trial % 2:
            z = torch.randint(-4, 5, (n_keys,), generator=gen).double() / 4  # ties; logits within 1: no saturation
        else:
            z = torch.randn(n_keys, generator=gen, dtype=torch.float64)
        weight = torch.softmax(betas[:, None] * z, -1)[:, int(z.argmax())]
        assert bool((weight.diff() >= -1e-12).all()), z
        assert bool((weight.diff() > 0).all()) or bool((z == z.max()).all()), z
    # read r200: "keys", plural, was too strong: the second-highest key can lose weight as the multiplier grows
    logits = torch.tensor([5.0, 2.9] + [0.0] * 10, dtype=torch.float64)
    second = torch.softmax(logits * torch.tensor([[1.0], [2.0]], dtype=torch.float64), -1)  # as they are, doubled
    assert abs(float(second[0, 1]) - 0.103) < 1e-3 and abs(float(second[1, 1]) - 0.015) < 1e-3, second[:, 1]
    assert float(second[1, 0]) > float(second[0, 0])  # while the top key gains
    assert (which, top) == ("key gets", "more"), (which, top)
    assert (t_verb, tau_verb) == ("divides", "multiply"), (t_verb, tau_verb)
    # fix pass 273 (reads r270a #5 and r270b #3): the opening's "a *temperature* $t$ divides $q \cdot k$, but Llama
    # 4's *query temperature* $\tau$ multiplies it", the Letters row's verbs and the cells' 1/t and tau
    assert (t_said, tau_said) == ("divides", "multiplies") and tau_said.startswith(tau_verb[:-1]), (t_said, tau_said)
    reciprocal = cells("temperature (attention temperature)")[3][1:-1]
    assert cells("Llama 4's query temperature $\\tau$ (temperature tuning)")[3] == "$\\tau$"
    # "Three scales change with the query": exactly the rows whose multiplier cell holds a position p, a count
    # N of tokens attended or Llama 4's tau, which grows with the position; the softmax scale, the temperature and
    # the attention factor hold one number for every query
    varying = {
        "Llama 4's query temperature $\\tau$ (temperature tuning)": "position",
        "logn attention (`use_logn_attn`)": "position",
        "Scalable-Softmax": "tokens",
    }
    named = {"query temperature": "position", "logn attention": "position", by_tokens: "tokens"}
    assert by_position.split(" and ") == ["query temperature", "logn attention"] and by_tokens == "Scalable-Softmax"
    # "how many tokens it attends: its position plus 1 under a causal mask, fewer under a sliding window": the keys
    # each query may attend under transformers' own mask functions, counted at positions 0 to 63 (counting from 0)
    from transformers.masking_utils import causal_mask_function, sliding_window_causal_mask_function

    n, window = 64, 16
    windowed = sliding_window_causal_mask_function(window)
    q_idx, kv_idx = torch.arange(n)[:, None], torch.arange(n)[None, :]
    causal_count = causal_mask_function(0, 0, q_idx, kv_idx).sum(1).tolist()
    window_count = windowed(torch.tensor(0), torch.tensor(0), q_idx, kv_idx).sum(1).tolist()
    assert causal_count == [p + int(plus) for p in range(n)], causal_count
    assert fewer == "fewer" and all(w <= c for w, c in zip(window_count, causal_count))
    assert window_count[window - 1] == window and all(
        w == window < c for w, c in zip(window_count[window:], causal_count[window:])
    )
    short = {
        term.split(" (")[0].replace("Llama 4's ", "").replace(" $\\tau$", ""): how for term, how in varying.items()
    }
    assert short == named, short
    assert changing == ["Zero", "One", "Two", "Three", "Four"][len(varying)], changing
    # read r191: which numbers change with the query is the block's bullet alone; the opening keeps to its one lesson
    assert "of the table's numbers change with the query" not in text
    scales_table = text[text.index("| English | 中文 | meaning | multiplier of $q \\cdot k$ | chapter |") :]
    scales_table = scales_table[: scales_table.index(" <details><summary>Where the word temperature differs")]
    assert scales_table.count(" |---|") == 1 and len(varying) < scales_table.count("| {doc}") + scales_table.count(
        "| {ref}"
    ), scales_table  # "Three of": the table has more rows than that
    for term in ("softmax scale", "temperature (attention temperature)", "attention factor"):
        assert not re.search(r"\bp\b|\bN\b|\\tau", cells(term)[3]), term  # no position, count or tau in the cell
    for term in varying:
        assert re.search(r"\bp\b|\bN\b|\\tau", cells(term)[3]), term
    # the attention factor's row: the one row of the table whose multiplier holds only in some heads, whose cell says
    # where it holds; the opening names that scope once, at the head of the attention factor's own sentence (read r192:
    # "every scale multiplies a query's scores" was loose for a factor on cos and sin; read r199: its own sentence)
    but = "attention factor"
    lead = text[text.index("### Temperature and query scales") :]
    lead = lead[: lead.index("| English |")]
    # read r201: the scope in plain words, "when RoPE rotates the whole head", the rows' "fully rotated head"
    # fix pass 258 (reads r253 #1, r253b #2): the opening says the square and points to the row for its two
    # exceptions, a partial rotary head and a QK-norm after the rotation, which the row's cells name
    # pass 258b: the scope and both exceptions on the main line, in the rows' words (reads r258 #3, r258b #2)
    # fix pass 264 (reads r263 #3 and r263b #3, unclear: the conditions buried the rule): the main line's scope is
    # the example head, Llama 3.1's; the rows' words, full rotation and no QK-norm after it, are the block's
    # fix pass 265 (reads r264 #1 and r264b #1, unclear: "In a head like Llama 3.1's" read as Llama 3.1 itself
    # sharpening its logits, though its `llama3` rule has no attention factor): the main line states the head's
    # conditions once, in the rows' words, and names YaRN at the example; the block says Llama 3.1 has that head but
    # no attention factor
    # fix pass 267 (read r266b #1, unclear: the conditions still stacked in the hardest paragraph): the main line
    # says the power alone; the conditions are the row's and the block's (checked just below)
    # fix pass 273 (reads r270a #5 and r270b #3, unclear: the square and its conditions crowded the lesson): the main
    # line no longer names the attention factor; its square and both conditions are the row's and the block's
    # fix pass 274 (reads r271a #6 and r271b #5, unclear: "one multiplier" for every row, though the attention factor's
    # is one only under conditions): the first sentence names it once, with no square and no conditions, which stay the
    # row's and the block's
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: caveats before the idea): the opening no longer names the
    # attention factor; its conditions sentence is the first bullets' of the block :data:`SCALES_CAVEATS`
    assert lead.count("attention factor") == 0 and lead.count("fully rotated") == 0, lead
    assert SCALES_CAVEATS in block(SCALES_CAVEATS_SUMMARY)
    assert "Llama 3.1" not in lead and lead.count("QK-norm") == 0, lead
    # fix pass 266 (reads r265 #2 and r265b #1, unclear: the conditions stacked before the table): one sentence; the
    # mechanism, cos and sin, is the row's meaning, and the example at s = 8 is the block's
    # fix pass 271 (read r269b #2, overstated: stated without its conditions, the square holds only in a fully rotated
    # head with no QK-norm after the rotation): the sentence points to its row, which gives them
    # fix pass 273 (reads r270a #5 and r270b #3): that sentence left the main line; the names' sentence ends it
    # fix pass 281 (main line kept at its length): the clause on the fourth column went, its header naming it
    assert " ".join(lead.split()).endswith(" Llama 4's *query temperature* $\\tau$ multiplies it."), lead
    assert "acts through its square" not in text, "fix pass 273: the square is the row's"
    # the block holds both conditions: a QK-norm after the rotation, and a partial rotary head
    assert "In a fully rotated head, a *QK-norm* after the rotation divides the factor out again" in block(YARN_FACTORS)
    assert "In a *partial rotary* head, only the rotated coordinates' share" in block(YARN_FACTORS)
    assert row("attention factor").startswith(
        "| attention factor | 注意力因子 | the number $a$ by which YaRN and LongRoPE multiply RoPE's cos and sin;"
    )
    assert (
        "Llama 3.1's head is fully rotated and has no *QK-norm*, but Llama 3.1 uses `llama3`, which has no attention"
        " factor." in block(YARN_FACTORS)
    )
    assert "only in a fully rotated head" not in block(YARN_FACTORS)  # the main line's condition, not repeated
    assert "in a fully rotated head with no *QK-norm* after the rotation" in row("attention factor")
    # fix pass 287 (read r282a #5): the multiplier cell gives the value, the meaning cell the scope
    assert cells("attention factor")[3].startswith("$a^2$, about 1.46 for YaRN at $s = 8$, as query and key")
    raw_scales = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    raw_scales = raw_scales[raw_scales.index("### Temperature and query scales") :]
    raw_scales = raw_scales[raw_scales.index("| English |") :]
    scale_rows = raw_scales[: raw_scales.index("\n\n")].splitlines()[2:]
    # fix pass 287 (read r282a #5): the one scoped row carries its scope in its meaning cell, not in the multiplier's
    scoped = [
        line.split(" | ")[0][2:] for line in scale_rows if "fully rotated head" in re.split(r"(?<!\\)\|", line)[3]
    ]
    assert scoped == [but], scoped
    assert not [line for line in scale_rows if " head" in re.split(r"(?<!\\)\|", line)[4]]
    # the temperature row's fourth-column cell is the reciprocal of a divisor (the entropy check below divides logits
    # by t)
    assert reciprocal == cells("temperature (attention temperature)")[3][1:-1] == "1/t", reciprocal
    assert (larger, direction) == ("larger", "sharpens"), (larger, direction)  # the entropy check below
    # "A *temperature* $t$ divides $q \\cdot k$" (read r222: "Only" overstated it, as the softmax scale's 1/sqrt(d)
    # divides too): of the table's rows, the temperature's meaning alone says divides; "so a smaller $t$ sharpens":
    # its multiplier 1/t grows as t falls, and the entropy never rises
    divides = [line.split(" | ")[0][2:] for line in scale_rows if "divides" in re.split(r"(?<!\\)\|", line)[3]]
    assert divides == ["temperature (attention temperature)"], divides
    assert "Only a *temperature*" not in text, "r222: the softmax scale divides by sqrt(d) too"
    # fix pass 273 (reads r270a #5 and r270b #3): "so a smaller $t$ sharpens" left the opening; it follows from the
    # rule, as 1/t grows when t falls, and the row says it ("below 1 it sharpens attention")
    assert "so a smaller $t$ sharpens" not in text and "below 1 it sharpens attention" in row(
        "temperature (attention temperature)"
    )
    logits = torch.randn(200, 16, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    by_t = torch.stack([attention_entropy(logits / t_value) for t_value in (2.0, 1.0, 0.7, 0.5, 0.25)])
    assert bool((by_t.diff(dim=0) <= 1e-12).all())  # t falling: entropy never rises
    # "one number for each query position": each multiplier that is not a constant is set by the query's position,
    # or by the tokens it attends (the rows' own words), never by the key
    assert "on the query at position $p \\ge L$" in row("logn attention (`use_logn_attn`)")
    assert cells("logn attention (`use_logn_attn`)")[3] == "$\\log_L(p + 1)$"
    assert "on the queries of Llama 4's NoPE layers, growing in steps with the position" in row(
        "Llama 4's query temperature $\\tau$ (temperature tuning)"
    )
    assert cells("Scalable-Softmax")[3] == "$\\ln N$ times a learned number, with $N$ the number of tokens attended"
    for term in ("softmax scale", "temperature (attention temperature)"):  # the constants
        assert cells(term)[3] in ("$1/\\sqrt d$", "$1/t$"), term
    # the attention factor's number, a^2, holds in a fully rotated head only: its meaning cell's scope, said there
    # alone (fix pass 287, read r282a #5); in a partial rotary head, the block's case, the logit is scaled by a^2 in
    # some pairs, by 1 in others
    assert cells("attention factor")[3].startswith("$a^2$, about 1.46 for YaRN at $s = 8$,")
    assert "fully rotated" not in cells("attention factor")[3]
    assert "no single number scales the" in block(
        "YaRN's and LongRoPE's attention factors, their names in code, and partial rotary heads"
    )
    # the block's "only the rotated coordinates' share of $q \cdot k$ is multiplied by the square": transformers' Phi
    # multiplies cos and sin by the factor and applies them to the rotated slice only; posenc's apply_partial passes
    # the rest through unchanged
    from transformers.models.phi import modeling_phi

    assert "query_rot, query_pass = (" in inspect.getsource(modeling_phi.PhiAttention.forward)
    import posenc._core.rope as core_rope

    assert "(cos * attention_scaling)" in inspect.getsource(core_rope.cache_tables)
    assert "unchanged" in inspect.getsource(core_rope.apply_partial)
    a, half = 1.2, 8
    gen = torch.Generator().manual_seed(3)
    ratios = set()
    for _ in range(3):
        q, k = torch.randn(2, 16, generator=gen, dtype=torch.float64)
        rotated, rest = q[:half] @ k[:half], q[half:] @ k[half:]
        ratios.add(round(float((a * a * rotated + rest) / (rotated + rest)), 6))
    assert len(ratios) == 3 and (a * a) not in ratios, ratios  # no single multiplier in a partial rotary head
    # one word, two ways: the temperature's cell divides, the query temperature's multiplies (checked against the cells)
    assert cells("temperature (attention temperature)")[3] == "$1/t$" and t_verb == "divides", t_verb
    assert tau_verb == "multiply", tau_verb
    # the row's "below 1 it sharpens attention": a divisor below 1 is a multiplier above 1
    assert "below 1 it sharpens attention, above 1 it flattens it" in row("temperature (attention temperature)")
    for t_value in (0.5, 0.9):
        logits = torch.randn(200, 16, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
        assert (attention_entropy(logits / t_value) <= attention_entropy(logits) + 1e-12).all(), t_value
    assert cells("Llama 4's query temperature $\\tau$ (temperature tuning)")[3] == "$\\tau$"
    assert "| a number $t$ that divides the logits:" in row("temperature (attention temperature)")
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("### Temperature and query scales") :]
    table = section[section.index("| English |") :]
    rows = table[: table.index("\n\n")].splitlines()
    assert rows[0].split(" | ")[3] == "multiplier of $q \\cdot k$", rows[0]
    fourth = [re.split(r"(?<!\\)\|", line)[4].strip() for line in rows[2:]]
    assert all(cell.startswith("$") for cell in fourth), fourth  # every cell a formula
    assert not any(line.startswith("| attention entropy |") for line in rows)  # a measurement, in the Maths table
    # each row's meaning says plainly whether its number multiplies or divides the logits; the temperature's alone
    # divides, as its fourth cell, the one $1/t$, says
    said = re.compile(
        r"multiplier (?:of the logits|that turns \$q \\cdot k\$ into the logit)"
        r"|multiplies (?:the|those layers'|that query's) logits"
    )
    for line in rows[2:]:
        term, meaning = line.split(" | ")[0][2:], re.split(r"(?<!\\)\|", line)[3]
        divides, multiplies = "divides the logits" in meaning, bool(said.search(meaning))
        assert divides != multiplies and divides == (term == "temperature (attention temperature)"), (term, meaning)
    # "only the temperature divides": its cell is the one reciprocal of a scale; the softmax scale's $1/\sqrt d$ is
    # itself the multiplier (transformers' `scaling`, head_dim**-0.5), fixed by the head's width
    dividing = [line.split(" | ")[0][2:] for line, cell in zip(rows[2:], fourth) if "1/" in cell or "over" in cell]
    assert dividing == ["softmax scale", "temperature (attention temperature)"], dividing
    assert fourth[:2] == ["$1/\\sqrt d$", "$1/t$"], fourth
    assert "Multiplying the logits by more than 1 never raises it |" in row("attention entropy")
    assert "| logit factor |" not in text and "logit factor" not in text
    for name in ("07_beyond", "08_extrapolation", "10_rope_today"):
        assert "logit factor" not in chapter(name), name
    assert row("temperature (attention temperature)").endswith(
        ", {ref}`Reading model code: Temperature rules <glossary-temperature>` |"
    )
    g = torch.Generator().manual_seed(0)
    factors = torch.linspace(0.05, 20, 200, dtype=torch.float64)
    for _ in range(200):
        n = int(torch.randint(2, 200, (1,), generator=g))
        z = torch.randn(n, generator=g, dtype=torch.float64) * float(
            10 * torch.rand(1, generator=g, dtype=torch.float64)
        )
        logp = torch.log_softmax(factors[:, None] * z, dim=-1)
        entropy = -(logp.exp() * logp).sum(-1)
        assert (entropy[1:] <= entropy[:-1] + 1e-12).all() and entropy[-1] < entropy[0], n


# ---- the worked example's last sentences and the primer of "Longer inputs" -------------------------------------


def test_a_larger_multiplier_sharpens_only_a_logit_of_multipliers_alone():
    """The opening's rule, :data:`SCALES_OPENING`: "A larger multiplier of $q \\cdot k$ sharpens attention as long as
    nothing else, such as an added bias or a soft-cap, acts on the logit: the top-scoring key gets more of the weight."
    (fix pass 268, read r267 #1, overstated: without the scope, the rule fails once a bias is added to the logit or a
    soft-cap follows the scale; fix pass 276, reads r273a #2 and r273b #1, unclear: the scope, once "where the logit is
    $q \\cdot k$ times its multipliers alone", said in words, naming the two counterexamples below). The reader's two
    counterexamples, through transformers' own attention functions, show the unscoped rule fails: T5's adds its
    *relative bias* after the scale, and with $q \\cdot k$ of 0 and 1 and a bias of 0 and -2, doubling the multiplier
    flattens attention to 0.5 and 0.5; Gemma 2's soft-caps after the scale, and with a cap of 1 and $q \\cdot k$ of 3
    and 1, or with its default cap and $q \\cdot k$ of 150 and 100, doubling the multiplier takes weight from the
    top-scoring key. The scoped rule holds: for random rows of $q \\cdot k$, Llama's attention with no mask is the
    softmax of $q \\cdot k$ times its scale alone, and as that multiplier grows, over products of the table's
    multipliers below and above 1, the top key's weight rises and the entropy never does."""
    from transformers.models.gemma2 import modeling_gemma2
    from transformers.models.llama import modeling_llama
    from transformers.models.t5 import modeling_t5

    flat = " ".join(page().split())
    ((larger, direction, which, top, *_),) = re.findall(SCALES_OPENING, flat)
    assert (larger, direction, which, top) == ("larger", "sharpens", "key gets", "more")
    assert (
        # fix pass 274 (reads r271a #6 and r271b #5): the sentence before now ends on the attention factor's conditions
        # fix pass 275 (read r272b #4, unclear: the idea came after the rows): the section's first sentence, the rows
        # after it
        # fix pass 276 (reads r273a #2 and r273b #1, unclear: "where the logit is q . k times its multipliers alone"):
        # the condition in words, "as long as nothing else, such as an added bias or a soft-cap, acts on the logit"
        # fix pass 280 (reads r276a #4 and r276b #2, unclear: the caveats came before the idea): the idea opens the
        # section, and its scope is the first bullet of the block under the table, :data:`SCALES_CAVEATS`
        # fix pass 281 (read r277b #1, overstated: the sentence itself said "a larger multiplier sharpens" with no
        # scope): the scope in the sentence, "When nothing else acts on the logit", checked below on T5's bias and
        # Gemma 2's soft-cap; (read r277a #4) the later rows on top of the first, the softmax scale
        "### Temperature and query scales Each row below gives a multiplier of $q \\cdot k$ before the softmax. The"
        " later rows multiply on top of the first, usually $1/\\sqrt d$. When nothing else acts on the logit, a larger"
        " multiplier sharpens attention: the top-scoring key gets more of the weight." in flat
    )
    assert SCALES_CAVEATS in block(SCALES_CAVEATS_SUMMARY)
    assert flat.index("| softmax scale |") < flat.index(SCALES_CAVEATS_SUMMARY)  # the caveats after the table
    module = type("M", (), {"training": False, "num_key_value_groups": 1})()

    def one_key_dim(scores: list[float]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """A query and keys of width 1 whose q . k are ``scores``: q = 1, k = the scores."""
        q = torch.ones(1, 1, 1, 1, dtype=torch.float64)
        k = torch.tensor(scores, dtype=torch.float64).reshape(1, 1, -1, 1)
        return q, k, torch.zeros_like(k)

    # a relative bias added after the scale (T5's code): q . k of 0 and 1, bias 0 and -2; multipliers 1 and 2
    q, k, v = one_key_dim([0.0, 1.0])
    bias = torch.tensor([0.0, -2.0], dtype=torch.float64).reshape(1, 1, 1, 2)
    source = inspect.getsource(modeling_t5.eager_attention_forward)
    assert source.index("* scaling") < source.index("attn_weights + position_bias")  # the bias is not scaled
    weights = [
        modeling_t5.eager_attention_forward(module, q, k, v, None, scaling=c, position_bias=bias)[1][0, 0, 0]
        for c in (1.0, 2.0)
    ]
    # logits 0 and -1 at the multiplier 1, so the first key's weight is 1 / (1 + e^-1); 0 and 0 once it is doubled
    assert abs(float(weights[0][0]) - 1 / (1 + math.exp(-1))) < 1e-6, weights[0]
    assert torch.allclose(weights[1], torch.full((2,), 0.5, dtype=torch.float64)), weights[1]
    assert float(attention_entropy(weights[1].log())) > float(attention_entropy(weights[0].log())) + 1e-6  # flatter
    # a soft-cap after the scale (Gemma 2's code): cap 1 with q . k of 3 and 1, and its default cap with 150 and 100
    source = inspect.getsource(modeling_gemma2.eager_attention_forward)
    assert source.index("* scaling") < source.index("torch.tanh(attn_weights)")  # the cap comes after the scale
    default_cap = transformers.Gemma2Config().attn_logit_softcapping
    assert default_cap == 50.0, default_cap
    for cap, scores in ((1.0, [3.0, 1.0]), (default_cap, [150.0, 100.0])):
        q, k, v = one_key_dim(scores)
        top = [
            float(modeling_gemma2.eager_attention_forward(module, q, k, v, None, scaling=c, softcap=cap)[1][0, 0, 0, 0])
            for c in (1.0, 2.0)
        ]
        assert top[1] < top[0] - 1e-6, (cap, top)  # the top-scoring key loses weight as the multiplier doubles
    # the scoped rule: Llama's attention, no mask, is softmax(scaling * q . k); swept over random rows of q . k and
    # multipliers from 1/sqrt(128) times a temperature's 1/t of 0.5 up to 1/sqrt(16) times a squared factor of 1.46
    # times a tau of 1.5
    gen = torch.Generator().manual_seed(268)
    for d in (16, 64, 128):
        q = torch.randn(1, 1, 8, d, generator=gen, dtype=torch.float64)
        k = torch.randn(1, 1, 24, d, generator=gen, dtype=torch.float64)
        v = torch.zeros_like(k)
        scores = (q @ k.transpose(-1, -2))[0, 0]
        multipliers = torch.tensor(
            sorted(
                {a / math.sqrt(width) * b for a in (0.5, 1.0, 1.46) for b in (1.0, 1.5, 2.0) for width in (16, 128)}
            ),
            dtype=torch.float64,
        )
        weights = torch.softmax(multipliers[:, None, None] * scores, -1)  # [multiplier, query, key]
        for c in (float(multipliers[0]), float(multipliers[-1])):
            _, llama = modeling_llama.eager_attention_forward(module, q, k, v, None, scaling=c)
            assert torch.allclose(llama[0, 0], torch.softmax(c * scores, -1), atol=1e-6), c
        top = weights.gather(-1, scores.argmax(-1)[None, :, None].expand(len(multipliers), -1, 1))[..., 0]
        assert bool((top.diff(dim=0) > 0).all()), d  # the top key's weight rises with the multiplier
        entropy = attention_entropy(multipliers[:, None, None] * scores)
        assert bool((entropy.diff(dim=0) <= 1e-12).all()), d  # and attention never flattens


def test_over_dividing_the_slowest_pair_and_pis_fast_pairs():
    """The worked example's "more than the stretch, 2"; the rows: effective factor, "the number by which a rule divides
    its slowest pair's frequency for one input"; stretch, "what the slowest pair needs to be divided by to turn about as
    far as in training"; fixed, "one effective factor for all inputs"; dynamic, "set from each input's length" (the
    worked example's table, whose PI and `llama3` rows say "8 at any length":
    :func:`test_primers_table_of_the_three_numbers`). The worked example (Llama 3.1's head, L = 8192, "Each rule gets
    `factor` = 8"): "So over the whole input the slowest pair stays inside the arc it met in training: no angle is new
    to it" (its largest angle over the input, at offset 2L - 1, is below training's at L - 1, and that arc is less than
    a turn); and its table's cells "divides every pair's frequency by 8" (PI, so its fast pairs too) and "keeps pairs
    0 to 28" (`llama3`, its fastest pairs, all fast)."""
    text = page()
    (stretch,) = re.findall(
        r"Here the stretch is (\d+)\. Each rule divides the slowest pair by more than that: fixed rules by \$s = 8\$,"
        r" dynamic NTK by 9\.",
        text,
    )
    assert "| the number by which a rule divides its slowest pair's frequency for one input:" in row(
        "effective factor | 有效因子"
    )
    assert "what the slowest pair needs to be divided by to turn about as far as in training |" in row("stretch | 拉伸")
    assert row("static or fixed (scaling) | 静态或固定").startswith(
        "| static or fixed (scaling) | 静态或固定 | a scaling that divides the frequencies by the same numbers for"
        " every input |"
    )
    assert "| a scaling whose divisors are set from each input's length;" in row("dynamic (scaling) | 动态")
    # fix pass 264 (read r263b #4, unclear: a learner from chapter 8 reads s as the stretch): `factor` in the sentence
    assert (
        "Each rule gets `factor` = 8 and an input of $2L$ tokens, with $L = 8192$, Llama 3.1's trained length." in text
    )
    assert (
        "So over the whole input the slowest pair stays inside the arc it met in training: no angle is new to it."
        in text
    )
    assert "| *position interpolation* | divides every pair's frequency by 8 |" in text
    ((kept_first, kept_last),) = re.findall(r"\| `llama3` \| keeps pairs (\d+) to (\d+), \*ramps\*", text)
    d, base, L, s = llama31_head()
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    slowest = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    assert (slowest[1:] < slowest[:-1]).all()  # "the last one, which turns least per position": posenc's frequencies
    # dividing the slowest pair's frequency by the page's stretch at 2L (posenc's PI with that factor): over 2L
    # positions it turns as far as over L in training, within one position's angle; a stretch of three would leave it
    # a third of a turn short
    by_stretch, _ = posenc.rope_scaled_inv_freq(
        d, base, rope_type="linear", factor=float(stretch), original_max_position_embeddings=L
    )
    assert abs((2 * L - 1) * float(by_stretch.double()[-1]) - (L - 1) * float(theta[-1])) <= float(theta[-1])
    bounds = dict(low_freq_factor=1.0, high_freq_factor=4.0)  # Llama 3.1's
    by_length = {"linear": [], "llama3": [], "dynamic": []}
    for n in (L // 2, L, 2 * L, 16 * L):  # the table's "8 at any length": PI's and llama3's, at four lengths
        for kind in by_length:
            scaled, _ = posenc.rope_scaled_inv_freq(
                d,
                base,
                rope_type=kind,
                factor=s,
                original_max_position_embeddings=L,
                seq_len=n,
                **(bounds if kind == "llama3" else {}),
            )
            by_length[kind].append(float(theta[-1] / scaled.double()[-1]))
    for kind in ("linear", "llama3"):  # fixed: s at every length
        assert all(abs(by - s) < 1e-6 * s for by in by_length[kind]), (kind, by_length[kind])
    assert len({round(by, 3) for by in by_length["dynamic"]}) > 1, by_length["dynamic"]  # dynamic: set from the length
    rules = {
        "pi": dict(rope_type="linear"),
        "llama3": dict(rope_type="llama3", low_freq_factor=1.0, high_freq_factor=4.0),
        "dynamic": dict(rope_type="dynamic", seq_len=2 * L),
    }
    fast = (L - 1) * theta >= 2 * math.pi
    assert not fast[-1]  # the slowest pair is slow: training showed it an arc, not its whole circle
    for name, rule in rules.items():
        scaled, _ = posenc.rope_scaled_inv_freq(d, base, factor=s, original_max_position_embeddings=L, **rule)
        scaled = scaled.double()
        assert (2 * L - 1) * scaled[-1] < (L - 1) * theta[-1], name  # less of a turn over 2L than over L in training
        divisor = theta / scaled
        if name == "pi":
            assert torch.allclose(divisor[fast], torch.full_like(divisor[fast], s), rtol=1e-6), divisor[fast]
        if name == "llama3":
            kept = torch.isclose(divisor, torch.ones_like(divisor), rtol=1e-6)
            n_kept = int(kept.sum())
            assert n_kept > 0 and kept[:n_kept].all() and fast[:n_kept].all(), n_kept  # the fastest pairs, all fast
            assert (int(kept_first), int(kept_last)) == (0, n_kept - 1), (kept_first, kept_last, n_kept)


# ---- chapter 8's words -----------------------------------------------------------------------------------------


def test_chapter_8_words_from_the_saved_run():
    """The filler's "sixteen symbols", the trigram's "about 0.72 nats at every length tested", *breaks*'s "$\\ln 28
    \\approx 3.33$" and its 28 tokens, the nat's "$\\ln 2 \\approx 0.69$" and fine-tuning's "$8L$": from the saved run's
    configuration and metrics. *fine*'s "a tenth of a nat" and *kept*'s "95 %" are chapter 8's definitions, so they are
    compared with chapter 8's table of words: the row is named after chapter 8's phrase "retrieval is *kept*", so the
    page's other "kept" rows mean a pair."""
    run = load_results("extrapolation", check=False)
    config, trigram = run["config"], run["metrics"]["trigram"]
    corpus = PasskeyCorpus(**config["corpus"])
    L = config["train_length"]
    words = {16: "sixteen"}
    assert f"a random second-order Markov chain over {words[corpus.vocab_size]} symbols" in row("filler | 填充文本")
    beyond = [n for n in config["eval_lengths"] if n > L]
    assert sorted(beyond + [L]) == sorted(config["eval_lengths"])  # every length tested: L and the longer ones
    losses = [seed["loss_beyond"][str(n)] for seed in trigram.values() for n in beyond]
    losses += [seed["loss_at_L"] for seed in trigram.values()]
    assert len(losses) == len(trigram) * (len(beyond) + 1) == 20 and {f"{v:.2f}" for v in losses} == {"0.72"}, losses
    # the trigram row says "one bit" and leaves its value in nats to the nat row (read r178: the row restated it)
    (nats,) = re.findall(
        r"with a loss of about ([\d.]+) nats at every length tested, near the filler's one bit per token \|",
        row("trigram baseline"),
    )
    (bit_nats,) = re.findall(r"one bit is \$\\ln 2 \\approx ([\d.]+)\$ nats", row("nat"))
    assert "0.69" not in row("trigram baseline") and "\\ln 2" not in row("trigram baseline")
    assert {f"{v:.2f}" for v in losses} == {nats} and f"{math.log(2):.2f}" == bit_nats  # one bit in nats
    assert 0 < float(nats) - float(bit_nats) < 0.1  # "near": within a tenth of a nat
    # the filler's entropy: a uniform choice among `branching` next tokens, ln 2 nats when it is 2 (the nat row's bit);
    # every trigram loss lies above it, within a tenth of a nat
    assert corpus.branching == 2 and "one bit is $\\ln 2 \\approx 0.69$ nats" in row("nat")
    assert all(0 < v - math.log(corpus.branching) < 0.1 for v in losses), losses
    vocab = corpus.n_tokens
    assert vocab == corpus.vocab_size + corpus.n_digits + 2
    breaks = (
        f"a loss above uniform guessing among all {vocab} tokens, $\\ln {vocab} \\approx {math.log(vocab):.2f}$ nats |"
    )
    assert breaks in row("breaks (loss)"), breaks
    tokens = f"The {vocab} tokens are {corpus.vocab_size} filler symbols, {corpus.n_digits} digits, `KEY` and `QUERY`."
    assert tokens in block(C8_BLOCK), tokens
    assert f"one bit is $\\ln 2 \\approx {math.log(2):.2f}$ nats" in row("nat")
    multiple = config["finetune"]["length"] // L
    assert multiple * L == config["finetune"]["length"]
    assert f"trained further on inputs of ${multiple}L$ tokens before the long tests" in row("fine-tuned")
    c8 = re.sub(r"\s+", " ", chapter("08_extrapolation"))
    (kept,) = re.findall(r"\| retrieval is \*kept\* \| (\d+) % of passkeys found or more, on average \|", c8)
    assert (
        f"| retrieval kept | 保住 | chapter 8's grade for {kept} % or more of the passkeys found, on average over the"
        " seeds |" in page()
    )
    assert (
        f'| kept | a pair whose frequency a scaling leaves unchanged | in chapter 8\'s experiment, "retrieval is kept":'
        f" {kept} % or more" in page()
    )
    # one word a sense: the pair row alone is "kept", with its own Chinese word, and it names no second sense
    assert row("kept (pair)").startswith(
        "| kept (pair) | 保留 | a pair whose frequency a RoPE scaling leaves unchanged |"
    )
    assert "passkey" not in row("kept (pair)") and "pair sense" not in page()
    assert "| the loss is *fine* | within a tenth of a nat of the trigram's mean, or below it, at the same length" in c8
    # fix pass 286 (read r281b #6, unclear: "below ... plus a tenth" in the lead, "within a tenth ... or below it" in
    # the row): one bound, the lead's, strict as chapter 8's grading below ("max(loss_8L[m]) < ... + 0.1")
    assert "a loss below the *trigram baseline*'s mean plus a tenth of a nat, at the same length" in row("fine (loss)")
    # read r198: both rows open "in every seed, ", chapter 8's grading rule: its loss_word grades *breaks* only when
    # every seed's loss is above ln 28 (the bar `uniform`, the row's 28 tokens) and *fine* only when every seed's is
    # below the trigram's mean plus a tenth of a nat; a model fine or broken in some seeds only fails its asserts
    # read r201: *raised* in chapter 8's words, "above *fine*, below *breaks*", and in every seed as its two neighbours
    # (the grading reaches "raised" only past the asserts that no seed is below the fine bar and none above ln 28)
    # fix pass 230, one decision (reads r226 #3 and r228 #1 against r198 and r201): the rows' meanings are chapter 8's
    # word table's, which has no "in every seed" (read into a definition, it left a model split between seeds with no
    # word); the section's lead says what r198 and r201 asked for, in chapter 8's own terms: its table gives five-seed
    # means, and each loss word there holds in every seed (the grading below; chapter 8's block says so)
    for word in ("fine (loss)", "raised (loss)", "breaks (loss)"):
        assert cells(word)[2].startswith("a loss ") and "every seed" not in cells(word)[2], (word, cells(word))
    assert cells("raised (loss)")[2] == "a loss above *fine*, below *breaks*", cells("raised (loss)")
    lead8 = (
        # fix pass 233 (read r232 #3: at 4L some methods' seeds fall on both sides of a bar): the table's length
        "Chapter 8 grades each run by its loss on the *filler* and the passkeys it finds."
        # fix pass 264 (read r263b #6, unclear: the main line used the three grades before the table defines them): a
        # short gloss of each at first use, in its row's terms (checked below against the rows and chapter 8's code)
        # fix pass 274 (read r271a #4, unclear: "near or below" came before the fine row's exact rule): the rule
        # itself, chapter 8's code's "fine below the trigram's mean + 0.1 nat" (checked below)
        # fix pass 287 (read r282a #2, unclear): "at the same length", as the fine row has
        " A loss is *fine* below the *trigram baseline*'s mean at the same length plus a tenth of a nat, *breaks* above"
        " uniform guessing, and is *raised* in between."
        # fix pass 274 (read r271a #4, unclear: "Its table" had no antecedent on a glossary page): whose table
        # fix pass 287 (read r282a #2, unclear: a table the reader cannot see): what chapter 8 reports, said here
        " Chapter 8 reports each run's passkeys found and loss at $8L$ as means"
        # fix pass 251 (reads r245 #3 and r245b #1: "loss word" came before the rows define the three words)
        # fix pass 258b (read r258b #4: the grades' scope): "each loss grade in that table"
        # fix pass 278 (read r275b #6, overstated: a fact of one stored run of five seeds read as the methods'):
        # "in its saved run", the extrapolation.json that chapter 8's table and grading read
        # fix pass 280 (reads r276a #3 and r276b #4, unclear: a per-seed fact on the main line, true at 8L only): the
        # main line keeps the definitions; the block :data:`C8_BLOCK` says the fact at 8L and names the runs that change
        # grade between seeds at 4L (both checked in test_chapter_8_grades_seed_by_seed_at_8l_and_4l)
        " over five seeds."
    )
    # fix pass 287 (read r282a #2): five seeds in chapter 8's saved run, its table's two numbers means of them
    assert len(load_results("extrapolation", check=False)["config"]["seeds"]) == {"five": 5}["five"]
    assert "every seed" not in lead8
    assert lead8 in page() and page().index(lead8) < page().index("| fine (loss) |")
    # the gloss and the rows say the same: fine below the baseline's mean plus a tenth of a nat; breaks above
    # uniform guessing; raised between the two
    assert cells("fine (loss)")[2].startswith("a loss below the *trigram baseline*'s mean plus a tenth of a nat")
    assert cells("breaks (loss)")[2].startswith("a loss above uniform guessing among all 28 tokens")
    assert "The table gives each model's two numbers at $8L$, means of five seeds" in c8
    assert "| the loss is *raised* | above *fine*, below *breaks* |" in c8
    assert "Each loss word holds in every seed." in c8
    nb8 = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    code8 = "".join("".join(c["source"]) for c in nb8["cells"] if c["cell_type"] == "code")
    assert "uniform = math.log(corpus.n_tokens)" in code8 and corpus.n_tokens == vocab
    grading = code8[code8.index("def loss_word(m):") :]
    grading = grading[: grading.index('return "raised"')]
    assert "every word holds in every seed" in grading
    # fix pass 274 (read r271a #4): the lead's "below the *trigram baseline*'s mean plus a tenth of a nat" is chapter
    # 8's bar for *fine*, which its grading compares every seed's loss at 8L with
    assert "fine below the trigram's mean + 0.1 nat" in grading
    assert 'if max(loss_8L[m]) < beyond["trigram"][512][0] + 0.1:\n        return "fine"' in grading
    for rule in (
        "if min(loss_8L[m]) > uniform:",  # every seed above ln 28
        'return "breaks"',
        "assert max(loss_8L[m]) < uniform",  # else no seed above it
        'if max(loss_8L[m]) < beyond["trigram"][512][0] + 0.1:',  # every seed below the trigram's mean + 0.1
        'return "fine"',
        'assert min(loss_8L[m]) > beyond["trigram"][512][0] + 0.1',  # else no seed below it
    ):
        assert rule in grading, rule


def test_chapter_8_grades_seed_by_seed_at_8l_and_4l():
    """The block :data:`C8_BLOCK`: "In this saved run, each loss grade in chapter 8's table at $8L$ holds in every seed.
    At $4L$, five runs change grade between seeds: plain RoPE, dynamic PI, dynamic YaRN with betas 32/1, dynamic NTK
    with factor 2, and FIRE." (fix pass 280, reads r276a #3 and r276b #4). Graded as the section's rows say, per seed,
    from the saved run: *breaks* above ln 28, *fine* within a tenth of a nat of the trigram's mean at the same length
    or below it, *raised* between; the runs' names are chapter 8's own labels. The learned model, which cannot run
    past L, has no loss there and no grade."""
    results = load_results("extrapolation", check=False)
    metrics, L = results["metrics"], results["config"]["train_length"]
    (tokens,) = re.findall(r"uniform guessing among all (\d+) tokens", row("breaks (loss)"))
    ceiling = math.log(int(tokens))
    nb = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    names_dict = code[code.index("NAME = {") :]
    labels = dict(re.findall(r'"([\w+ ]+)": "([^"]+)"', names_dict[: names_dict.index("}")]))  # chapter 8's run names

    def split_runs(n: int) -> list[str]:
        trigram = [metrics["trigram"][seed]["loss_beyond"][str(n)] for seed in metrics["trigram"]]
        fine = sum(trigram) / len(trigram) + 0.1
        split = []
        for run, by_seed in metrics.items():
            losses = [r["loss_beyond"][str(n)] for r in by_seed.values()]
            if run == "trigram" or None in losses:
                continue
            grades = {"breaks" if x > ceiling else "fine" if x <= fine else "raised" for x in losses}
            if len(grades) > 1:
                split.append(run)
        return split

    assert split_runs(8 * L) == []
    names = [labels[run] for run in split_runs(4 * L)]
    text = block(C8_BLOCK)
    # fix pass 285 (read r280a #4, overstated mild: the 8L fact read as general, though two 4L seeds sit within 0.001
    # nats of the bound): "In this saved run" first, as the 4L list's "this one saved run"
    assert "In this saved run, each loss grade in chapter 8's table at $8L$ holds in every seed." in text
    ((count, said),) = re.findall(r"At \$4L\$, (\w+) runs change grade between seeds: ([^.]+)\.", text)
    said = said.replace(", and ", ", ").split(", ")
    assert len(said) == len(names) == {"five": 5}[count], (said, names)
    # chapter 8's labels, "dynamic YaRN, betas 32/1", read with "with" in a list that commas separate
    wording = {
        "dynamic YaRN, betas 32/1": "dynamic YaRN with betas 32/1",
        "dynamic NTK, factor 2": "dynamic NTK with factor 2",
    }
    assert sorted(wording.get(n, n) for n in names) == sorted(said), (names, said)
    # fix pass 282 (read r278b #5, machine-dependent: two seeds sit on the fine bound): the list is the saved run's,
    # and the seeds within 0.002 nats of the bound at 4L are exactly the two named, each about 0.001 above it
    ((seed_a, run_a, gap, seed_b, run_b),) = re.findall(
        # fix pass 287 (read r282a #1 and r282b #4, unclear: "dynamic YaRN" right after "dynamic YaRN with betas 32/1"):
        # the run's betas named, checked against the saved run's config below, and why the near misses matter
        # fix pass 289 (read r284a #1, false minor: "so the list of five could change with a rerun" rested on dynamic
        # NTK f2's seed 0 too, a run already on the list, whose one seed turning fine would not change it): the near
        # miss that could add a run is the betas-2/1 one; the f2 run is "already on it" (both checked below)
        r"This list comes from this one saved run: at \$4L\$, seed (\d) of ([\w /]+?) lies about ([\d.]+) nats above"
        r" the \*fine\* bound, so a rerun could add that run to the list; seed (\d) of ([\w ]+?), already on it, lies"
        r" as close\.",
        " ".join(text.split()),
    )
    trigram = [metrics["trigram"][s]["loss_beyond"][str(4 * L)] for s in metrics["trigram"]]
    fine = sum(trigram) / len(trigram) + 0.1
    near = {
        (labels[run], seed): x["loss_beyond"][str(4 * L)] - fine
        for run, by_seed in metrics.items()
        for seed, x in by_seed.items()
        if x["loss_beyond"][str(4 * L)] is not None and abs(x["loss_beyond"][str(4 * L)] - fine) < 0.002
    }
    back = {v: k for k, v in wording.items()}
    # fix pass 287 (read r282a #1 and r282b #4): "dynamic YaRN with betas 2/1" is chapter 8's "dynamic YaRN", the run
    # with the saved run's default betas, 2 and 1
    yarn_betas = results["config"]["yarn"]
    betas = f"{yarn_betas['beta_fast']:g}/{yarn_betas['beta_slow']:g}"
    back[f"dynamic YaRN with betas {betas}"] = "dynamic YaRN"
    assert run_a == f"dynamic YaRN with betas {betas}" == "dynamic YaRN with betas 2/1", run_a
    assert round(near[("dynamic YaRN", seed_a)], 4) == 0.0011, near  # the readers' +0.0011, from the saved run
    said_near = {(back.get(run_a, run_a), seed_a), (back.get(run_b, run_b), seed_b)}
    assert set(near) == said_near, (near, said_near)
    assert all(0 < g and round(g, 3) == float(gap) for g in near.values()), near
    # fix pass 289 (read r284a #1): the betas-2/1 run is not on the list, and every other seed of it is raised at 4L,
    # so its near seed turning fine would add it; the f2 run is on the list already
    assert "dynamic YaRN" not in names and back.get(run_b, run_b) in names, (names, run_b)
    yarn_4l = {seed: x["loss_beyond"][str(4 * L)] - fine for seed, x in metrics["rope+yarn"].items()}
    assert all(gap_ > 0 for gap_ in yarn_4l.values()) and min(yarn_4l, key=yarn_4l.get) == seed_a, yarn_4l


def test_a_static_rule_changes_short_inputs_too():
    """The Longer inputs block "In models and code": "A *static* rule changes short inputs too: in chapter 8's saved
    run, YaRN×8's loss at $L$ is 0.09 to 0.18 nats above plain RoPE's in every seed. Reading model code's
    {ref}`Static and dynamic scaling rules <glossary-dynamic>` cites Qwen's model cards' advice to add `yarn` only when
    long inputs need it." (fix pass 280, reads r276a #7 and r276b #7, omission: the page never tied chapter 8's cost
    at L to practice). The gap per seed from the saved run, rounded as the page rounds it; YaRN×8 is a fixed factor
    of 8; the cited advice sits in the linked section of Reading model code."""
    results = load_results("extrapolation", check=False)
    metrics, config = results["metrics"], results["config"]
    assert config["sensitivity"]["yarn fixed"] == {"scaling": "yarn", "factor": 8.0}  # static: one factor for all
    seeds = sorted(metrics["rope"])
    gaps = [metrics["rope+yarn fixed"][s]["loss_at_L"] - metrics["rope"][s]["loss_at_L"] for s in seeds]
    assert all(g > 0 for g in gaps), gaps  # worse in every seed
    ((low, high),) = re.findall(
        r"- A \*static\* rule changes short inputs too: in chapter 8's saved run, YaRN×8's loss at \$L\$ is ([\d.]+) to"
        r" ([\d.]+) nats above plain RoPE's in every seed\. Reading model code's \{ref\}`Static and dynamic scaling"
        r" rules <glossary-dynamic>` cites Qwen's model cards' advice to add `yarn` only when long inputs need it\.",
        models_block("### Terms for longer inputs"),
    )
    assert (f"{min(gaps):.2f}", f"{max(gaps):.2f}") == (low, high), gaps
    reading = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")
    section = reading[reading.index("(glossary-dynamic)=") :]
    section = " ".join(section[: section.index("\n## ", section.index("\n## ") + 1)].split())
    assert "Qwen's model cards advise adding `yarn` only when long inputs need it" in section


# ---- the rows added for chapters 1 to 5 and 9 ---------------------------------------------------------------------


def elementwise_op_counts(d: int) -> dict[str, int]:
    """The element-wise arithmetic of posenc's element-wise RoPE (transformers' `x * cos + rotate_half(x) * sin`) on
    one vector of width d, counted op by op with torch's dispatch: each mul, add, sub and neg, by its output's size."""
    from torch.utils._python_dispatch import TorchDispatchMode

    counts: dict[str, int] = {}

    class Count(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            name = func.overloadpacket.__name__
            if name in {"mul", "add", "sub", "neg"}:
                counts[name] = counts.get(name, 0) + out.numel()
            return out

    cos, sin = posenc.rope_cos_sin(1, d)
    x = torch.randn(1, d)
    with Count():
        posenc.apply_rope_rotate_half(x, cos, sin)
    return counts


def test_matrix_forms_count():
    """The row "matrix form (of RoPE)": "RoPE written as a $d \\times d$ rotation matrix times each vector; the
    element-wise form multiplies by cos and sin coordinate by coordinate", its definition alone (read r178), and the
    Maths block "More on bfloat16 angles and the matrix form": "The *matrix form* costs $2d^2$ operations per
    vector, the element-wise form about $3d$": torch's FLOP counter on posenc's rotation matrices gives 2d^2; posenc's
    element-wise apply, counted op by op, does 2d multiplies and d adds, 3d in all (rotate_half's d/2 sign flips aside);
    and chapter 9's hand count agrees. The count sits in the block beside the float32 rule, in the section whose row
    defines the matrix form, not in the decay block."""
    text = row("matrix form (of RoPE)")
    assert (
        "| RoPE written as a $d \\times d$ rotation matrix times each vector; the element-wise form multiplies by cos"
        " and sin coordinate by coordinate |" in text
    )
    assert "- The *matrix form* costs $2d^2$ operations per vector, the element-wise form about $3d$." in block(
        "More on bfloat16 angles and the matrix form"
    )
    assert "matrix form" not in block("RoFormer's bound, and what chapter 5 finds about the decay")  # in its own block
    from posenc.measure.costs import matmul_flops

    for d in (8, 64, 128):
        R = torch.stack([posenc.rope_matrix(p, d) for p in range(5)])  # [5, d, d]
        x = torch.randn(5, d, 1)
        assert matmul_flops(lambda R=R, x=x: R @ x) == 5 * 2 * d * d, d
        counts = elementwise_op_counts(d)  # "about $3d$": 2d multiplies (by cos, by sin) and d adds
        assert (counts.get("mul", 0), counts.get("add", 0) + counts.get("sub", 0)) == (2 * d, d), (d, counts)
        assert counts.get("neg", 0) <= d // 2, (d, counts)  # the sign flips, outside the row's "about"
    assert "The element-wise form does about $3d$ operations per vector." in chapter("09_performance")  # agrees


def test_distance_and_offset_rows_name_the_chapters_that_use_them():
    """The Letters table's distance row, "signed, as this page's *offset*: $j - i$ in chapter 3 and $r = n - m$ in
    chapter 5; unsigned, $\\lvert \\Delta\\rvert$ in chapters 2 and 10, $\\lvert i - j\\rvert$ in chapter 6 and
    $\\lvert j - i\\rvert$ in chapters 1, 3 and 11 and $\\lvert i - j\\rvert$ in chapter 6, which also writes
    $\\lvert j - i\\rvert$ once; in chapter 2, also the Euclidean distance between two vectors"
    (chapter 10 calls the signed $\\Delta$ the offset, so it is no longer a signed use; read r178 added chapter 2, which
    uses both the unsigned distance and the distance between vectors, and its link in the distance row; read r181 added
    chapter 3, whose ALiBi penalty "grows linearly with the distance" $|j - i|$), and
    the chapters
    listed for the offset and the unsigned distance, read from
    the chapters' own words: the distance row links exactly the chapters that use the distance unsigned, chapter 3
    among them, and not chapter 5, whose distance is only signed, and keeps to one
    idea, "how far a key lies from its query, $\\lvert n - m\\rvert$, never negative", with a pointer to the Letters
    table, which alone gives the signed use."""
    signed = {
        "03_relative": "The distance is always the key's position minus the query's, $j - i$",
        "05_decay": "**Distance** $r = n - m$: the key's position minus the query's.",
    }
    for name, words in signed.items():
        assert words in chapter(name), name
    # chapter 10 names the signed Delta the offset and its size the distance, as this page does
    assert "depends only on the *offset* $\\Delta = n - m$, key minus query" in chapter("10_rope_today")
    assert "The *distance* is its size, $|\\Delta|$." in chapter("10_rope_today")
    assert "the distance $\\Delta = n - m$" not in chapter("10_rope_today")
    # one row: this page's meaning, then each chapter's signed form and the unsigned chapters
    # fix pass 265 (read r264 #2, unclear: chapter 6 also writes $\lvert j - i\rvert$, in its symmetric form): the
    # row lists chapter 6 for both orders between bars, and every chapter that writes $|j - i|$, chapter 1 included;
    # chapter 6's signed $j - i$ it never calls a distance, so it stays the offset row's and the $i$ row's
    (first, second, delta_first, delta_second, bars_j_i_list, bars_first, vectors) = re.findall(
        r"^\| distance \| \$\\lvert n - m\\rvert\$, never negative \| signed, as this page's \*offset\*: \$j - i\$ in"
        r" chapter (\d+) and \$r = n - m\$ in chapter (\d+); unsigned, \$\\lvert \\Delta\\rvert\$ in chapters (\d+) and"
        # fix pass 279 (read r275a #2, unclear: chapter 6 listed under both orders read as a slip): each chapter once,
        # chapter 6 under its usual order, with its one other
        r" (\d+), \$\\lvert j - i\\rvert\$ in chapters ([\d, and]+) and \$\\lvert i - j\\rvert\$ in chapter (\d+),"
        r" which also writes \$\\lvert j - i\\rvert\$ once;"
        r" in chapter (\d+), also the Euclidean distance between two vectors \|$",
        letters("distance"),
    )[0]
    bars_j_i = {int(n) for n in re.findall(r"\d+", bars_j_i_list)}

    # "|i - j| in chapter 6 ... |j - i| in chapters 1, 3, 6 and 11": the chapters whose markdown writes each between
    # bars
    def between_bars(form: str) -> set[int]:
        return {
            int(Path(path).name[:2])
            for path in glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))
            if re.search(rf"(\||\\lvert) ?{form} ?(\||\\rvert)", chapter(Path(path).stem))
        }

    assert between_bars("i - j") == {int(bars_first)} == {6}
    assert between_bars("j - i") == bars_j_i | {int(bars_first)} == {1, 3, 6, 11} and int(bars_first) not in bars_j_i
    # fix pass 279 (read r275a #2): "which also writes |j - i| once": chapter 6's markdown has it once, |i - j| more
    c6 = chapter("06_alibi")
    assert len(re.findall(r"(\||\\lvert) ?j - i ?(\||\\rvert)", c6)) == 1
    assert len(re.findall(r"(\||\\lvert) ?i - j ?(\||\\rvert)", c6)) > 1
    assert between_bars("\\\\Delta") >= {int(delta_first), int(delta_second)} == {2, 10}
    # "in chapter 2, also the Euclidean distance between two vectors": chapter 2's words for the distance between
    # words, neighbours and rows, and its code, which measures them with torch.cdist, a vector norm and torch.pdist,
    # all Euclidean
    c2 = chapter("02_absolute")
    for words in (
        "the mean distance between different words",
        "the distance between neighbours",
        "the distance between rows depends only on their offset",
    ):
        assert words in c2, words
    c2_code = "\n".join(
        "".join(cell["source"])
        for cell in json.loads((ROOT / "notebooks" / "02_absolute.ipynb").read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    )
    assert "torch.cdist(v, v)" in c2_code and "torch.pdist(" in c2_code
    assert "step_sinus = (sinus[1:] - sinus[:-1]).norm(dim=1)" in c2_code  # |PE(p+1) - PE(p)|, a 2-norm
    x = torch.randn(5, 7, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    euclid = ((x[:, None] - x[None]) ** 2).sum(-1).sqrt()  # the Euclidean distance of every two rows
    upper = torch.triu_indices(5, 5, 1)
    assert torch.allclose(torch.cdist(x, x), euclid) and torch.allclose(torch.pdist(x), euclid[upper[0], upper[1]])
    assert int(vectors) == 2
    # the row is the definition alone, ending at "never negative" (read r199: its caveat on chapters 3 and 5 repeated
    # the block's); the block right under the table names the chapters whose "distance" is signed, the same two as the
    # Letters table's signed forms, gives their letters and links Letters
    # fix pass 268 (read r267b #1, unclear: the row's clause on chapters 3 and 5 contradicted its "never negative"):
    # the clause removed again
    assert "also use *distance* for the signed" not in page()
    distance_row = row("distance | 距离")
    assert re.findall(DISTANCE_ROW, distance_row) == ["negative"], distance_row
    raw_core = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    core_end = raw_core.index("<details><summary>Offset and distance in other chapters</summary>")
    assert raw_core[:core_end].rstrip().endswith("|"), "the block follows the Core table with no sentence between"
    # the block gives the chapters' letters, then says that chapter 3 also uses the word unsigned (read r192)
    assert "writing $" not in distance_row and "$j - i$" not in distance_row and "$r$" not in distance_row
    ((b_first, b_second, b_three, three, b_five, five, b_both, b_no_offset),) = re.findall(
        DISTANCE_BLOCK, " ".join(block("Offset and distance in other chapters").split())
    )
    assert re.fullmatch(DISTANCE_BLOCK, " ".join(block("Offset and distance in other chapters").split()))
    assert "signed" not in distance_row and "chapters" not in distance_row and "this page" not in distance_row
    assert "also use the word *distance* for the signed offset:" in block("Offset and distance in other chapters")
    assert [b_three, b_five] == [b_first, b_second]
    # each chapter's letter for the signed distance, in the order the block names the chapters
    assert (three, five) == ("j - i", "r"), (three, five)
    assert f"${three}$" in signed["03_relative"] and f"${five} = n - m$" in signed["05_decay"]
    # "Chapter 3 also uses the word for the offset's size": its unsigned use, below; chapter 5's distance is only signed
    assert int(b_both) == 3 and int(b_no_offset) == 5
    assert [int(b_first), int(b_second)] == [int(first), int(second)], (b_first, b_second)
    assert core_table_terms().index("offset") < core_table_terms().index("distance")  # *offset* defined above it
    assert "(glossary-letters)=\n## Letters and words with more than one meaning" in ROOT.joinpath(
        "book", "glossary.md"
    ).read_text(encoding="utf-8")
    assert [int(first), int(second)] == sorted(int(name[:2]) for name in signed), (first, second)
    unsigned = {
        "02_absolute": "it depends only on the distance $|\\Delta|$ and cannot tell left from right",
        "03_relative": "subtracts $m\\,|j - i|$ from each logit: a penalty that grows linearly with the distance",
        "06_alibi": "The book calls it the key form and $-m_h|i - j|$ the distance form.",
        "07_beyond": "Call $|\\text{key} - \\text{query}|$ the distance.",
        "08_extrapolation": "A *distance* counts the tokens from `QUERY` back",
        "10_rope_today": "The *distance* is its size, $|\\Delta|$.",
        "11_learned_position": "its *distance* is $|j - i|$",
    }
    offset = {
        "01_why_position": "the offset $j - i$",
        "02_absolute": "of the offset $\\Delta = n - m$ alone, key minus query",
        "04_rope": "the offset is $n - m$, key minus query",
        "06_alibi": "it depends only on $j - i$",
        "07_beyond": "an offset is key position minus query position",
        "10_rope_today": "depends only on the *offset* $\\Delta = n - m$, key minus query",
        "11_learned_position": "The book's offset is key minus query, $j - i$",
    }
    for glossary_row, users in (("distance | 距离", unsigned), ("offset", offset)):
        for name, words in users.items():  # each chapter uses the word so, and the row links it
            assert words in " ".join(chapter(name).split()), name
            assert f"<../notebooks/{name}>`" in row(glossary_row), name
    # the distance row links the unsigned uses, chapter 3's among them; chapter 5, whose distance is only signed, not
    linked = re.findall(r"<\.\./notebooks/(\w+)>`", row("distance | 距离"))
    assert sorted(linked) == sorted(unsigned) and set(linked) & set(signed) == {"03_relative"}, linked


# ---- the primer's three numbers and the worked example's L -------------------------------------------------------


def test_worked_examples_effective_scale_column():
    """The worked example: "Each rule gets `factor` = 8 and an input of $2L$ tokens, with $L = 8192$, Llama 3.1's
    trained length", and its table's column "effective factor: divides the slowest pair's frequency by", the main line's
    three-rule table's header for the same quantity: "8 at any length" for PI, `llama3` and YaRN, "9 at this length" for
    dynamic NTK. The sentence's s, input and L are read from the page, L against posenc/book/models.py's copy of Llama
    3.1's config (a prose sync). Each effective factor is measured, the slowest pair's frequency over the rule's, from
    posenc's rules and from transformers' own, each given the trained length as its L (for `dynamic`,
    `max_position_embeddings`); "at any length" is checked at four lengths, and "at this length" by a different scale
    at another length."""

    ((factor, times, trained),) = re.findall(
        r"Each rule gets `factor` = (\d+) and an input of \$(\d*)L\$ tokens, with \$L = (\d+)\$, Llama 3\.1's trained"
        r" length\.",
        page(),
    )
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    assert int(trained) == llama["rope_scaling"]["original_max_position_embeddings"] == llama["trained_length_before"]
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    header = "| rule | what it does to the frequencies | effective factor: divides the slowest pair's frequency by |"
    lines = raw[raw.index(header) :].splitlines()
    assert lines[1] == "|---|---|---|", lines[1]
    table, scoped = {}, []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        # fix pass 264 (read r263 #4, overstated: read alone, "8 at any length" sounded general for `llama3` and
        # YaRN): their cells end "in this head", checked below on a head whose slowest pair turns more than once in L
        ((value, when, head),) = re.findall(
            r"^(\d+) at (any|this) length( in this head)?(?:, scaling from the trained length, 8 192; .*)?$", cells[-1]
        )
        table[cells[0]] = (float(value), when)
        if head:
            scoped.append(cells[0])
        if when == "this":
            assert cells[-1] == DYN_NTK_CELL, cells[-1]
    rows = ["*position interpolation*", "`llama3`", "*YaRN*, default *betas*", "*dynamic NTK*"]
    assert list(table) == rows, list(table)
    assert scoped == ["`llama3`", "*YaRN*, default *betas*"], scoped
    d, base, L, s = llama31_head()  # the worked example's head, from the registry
    assert (L, s) == (int(trained), float(factor)), (trained, factor)
    n = int(times or 1) * L
    assert n == 2 * L
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    bounds = {"low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1's, as in the worked example
    rules = {"linear": {}, "llama3": bounds, "yarn": {}, "dynamic": {}}  # yarn: no betas given, its defaults
    for (kind, extra), (printed, when) in zip(rules.items(), table.values()):

        def scale(length, kind=kind, extra=extra):
            ours, _ = posenc.rope_scaled_inv_freq(
                d, base, rope_type=kind, factor=s, original_max_position_embeddings=L, seq_len=length, **extra
            )
            params = {"rope_type": kind, "rope_theta": base, "factor": s, **extra}
            stored = L  # `dynamic` reads L from `max_position_embeddings`
            if kind in ("llama3", "yarn"):
                params["original_max_position_embeddings"] = L
                stored = int(s * L)  # the scaled length, as a config declares it
            hf = hf_inv_freq(d, max_position_embeddings=stored, seq_len=length if kind == "dynamic" else None, **params)
            both = [float(theta[-1] / freqs.double()[-1]) for freqs in (ours, hf)]
            assert abs(both[0] - both[1]) < 1e-4 * both[0], (kind, length, both)  # float32 frequencies
            return both[0]

        assert abs(scale(n) - printed) < 1e-4 * printed, (kind, scale(n), printed)
        others = [scale(length) for length in (L // 2, 4 * L, 16 * L)]
        if when == "any":
            assert all(abs(other - printed) < 1e-4 * printed for other in others), (kind, others)
        else:
            assert all(abs(other - printed) > 0.1 for other in others), (kind, others)
    # "in this head": PI divides every head's slowest pair by `factor`; in a head whose slowest pair turns more than
    # once in L (base 100, width 16: about 23 turns), `llama3` keeps it and YaRN ramps it, dividing by less than 8
    fast_theta = posenc.rope_inv_freq(16, 100.0, dtype=torch.float64)
    assert L * float(fast_theta[-1]) / (2 * math.pi) > 4  # above `llama3`'s upper bound and YaRN's lower one
    for kind, extra in (("linear", {}), ("llama3", bounds), ("yarn", {})):
        params = {"rope_type": kind, "rope_theta": 100.0, "factor": s, "original_max_position_embeddings": L, **extra}
        by = float(fast_theta[-1] / hf_inv_freq(16, max_position_embeddings=int(s * L), **params).double()[-1])
        assert (abs(by - s) < 1e-4 * s) == (kind == "linear") and by < s * (1 + 1e-4), (kind, by)


def test_worked_example_reads_the_trained_length_and_the_shipped_config_a_larger_one():
    """The collapsed worked example gives every rule "$L = 8192$, Llama 3.1's trained length" (its field
    `original_max_position_embeddings`), and no other $L$; the block right after it, on its dynamic NTK, names no
    other $L$. The note "*dynamic NTK*" in "Where papers and code differ" gives the field transformers reads: "the
    rule's $L$ is the trained length; transformers 5.24's `dynamic` reads $L$ from `max_position_embeddings`". The main
    line of "Longer inputs" names the head and its `factor` but no value of $L$ (read r191), and leaves the field to the
    note
    (:func:`test_longer_inputs_main_line_gives_the_slowest_pairs_divisors`); the dynamic NTK row does not name it.
    The two fields from posenc/book/models.py's copy of Llama 3.1's config
    (a prose sync); the field each of transformers' rules reads, from its source; and transformers' `dynamic` run at
    2L on each field."""
    from transformers.modeling_rope_utils import _compute_dynamic_ntk_parameters, _compute_llama3_parameters

    text = page()
    (read,) = re.findall(r"tokens, with \$L = (\d+)\$, Llama 3\.1's trained length\.", text)
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = example_section(raw)
    visible = re.sub(r"\s+", " ", re.sub(r"<details>.*?</details>", " ", section, flags=re.S))
    # read r191: the main line names the head and its `factor`, and leaves L's value, 8192, to the block
    assert not re.findall(r"\$L = (\d+)", visible) and "8192" not in visible, visible
    assert "max_position_embeddings" not in visible, visible  # the block's aside
    # dynamic NTK, whose L matters (the run below: only with the trained L does transformers' `dynamic` scale this
    # input), is left to the blocks
    assert "dynamic ntk" not in visible.lower(), visible
    # the fast pair, whose fastest `llama3` and YaRN keep, then the example head, then the table of what each rule does
    # to the fastest pair, PI's row with what that does to its angles (read r186: the main line named a cost with no
    # mechanism; chapter 8's comparison is the costs block's); read r191: the table ends the main line, its lesson first
    # read r203: the fast pair's sentence moved to the section's top, with the slow pair's; the subsection opens with
    # what the three rules do, :data:`LESSON`, then the example head
    assert f"{LESSON} {FIXED_RULES} | rule | what it does to pair 0, the fastest pair |" in visible, visible
    # fix pass 279 (reads r275a #3 and r275b #2): the table, then the head and its pair numbers, moved from the opening
    # fix pass 282 (read r278a #2, #3, unclear: YaRN's fewer kept pairs and Llama 3.1's 16L only in the block): two
    # sentences after the pair numbers (0 to 18: test_yarn_keeps_fewer_pairs_282; 16L: the example block's, reused)
    assert visible.rstrip().endswith(
        # fix pass 286 (reads r281a #5 and r281b #2): the pair numbers as a table, :data:`LLAMA_PAIRS_TABLE`
        YARN_FASTEST_ROW + " " + LLAMA_HEAD + " " + LLAMA_FAST_NOT_KEPT + " " + FLAT_PAIRS_TABLE + " " + YARN_FEWER_16L
    ), visible[-400:]
    assert PI_FASTEST_ROW in visible
    assert "Chapter 8" not in visible
    # read r183: "meets no new angle" read literally (past L a fast pair's angles fall between trained ones, never on
    # them); the main line says what a new angle is: an angle past the end of the arc training showed (read r203: the
    # section's top says it, :data:`LONGER_LESSON` and :data:`SLOW_PAIR_CLAUSE`, before this subsection)
    assert "would turn them past the angles training showed." in LONGER_LESSON and SLOW_PAIR_CLAUSE in page()
    assert "only one arc of its circle" in SLOW_PAIR_CLAUSE
    assert "meets no new angle even" not in visible
    assert "angle combination" not in page() and "alone meets no new angle" not in visible  # left the book
    assert "Transformers' `dynamic`" not in visible, visible
    assert "trained at" not in visible
    assert "| $L$, the input length a model was trained at before any RoPE scaling;" in row("trained length | 训练长度")
    example = block(WE)
    # the block's lead says how the three tellings relate: the main line's table, this block, the next block
    lead = (
        # read r199: "main line" is the book's own layout word, not the reader's
        "The table above gives only pair 0. This block takes an input of $2L$, goes pair by pair, and adds"
        " dynamic NTK, whose 9 the next block derives."
    )
    assert " ".join(example.split()).startswith(lead), example[:300]
    assert f"| {DYN_NTK_CELL} | Here the stretch is 2." in " ".join(example.split())
    # the worked example ends with its point; dynamic NTK's formula, its L in transformers and chapter 8's two
    # factors sit in the next block, right after it
    assert "*Dynamic NTK* sets" not in example and "Chapter 8 defines" not in example
    assert raw.index(f"<summary>{WE}</summary>") < raw.index(f"<summary>{DYN}</summary>")
    assert (
        raw[raw.index(f"<summary>{WE}</summary>") :]
        .split("</details>", 1)[1]
        .lstrip()
        .startswith(f"<details><summary>{DYN}</summary>")
    )
    dyn_block = block(DYN)
    assert dyn_block.startswith("*Dynamic NTK* sets its effective factor to $1 + s(\\ell/L - 1)$ past $L$.")
    assert set(re.findall(r"L = (\d+)", example)) == {read} and not re.findall(r"L = (\d+)", dyn_block)  # one L
    # the row is a definition; the field transformers' `dynamic` reads as L is the note's (the run below shows it is
    # that field, not the trained length of `original_max_position_embeddings`, and that Llama 3.1's config sets it
    # above L)
    assert "(emozilla 2023) | {doc}`7" in row("dynamic NTK (`dynamic`)")
    assert "max_position_embeddings" not in row("dynamic NTK (`dynamic`)")
    assert (
        "| the rule's $L$ is the trained length; transformers 5.24's `dynamic` reads $L$ from `max_position_embeddings`"
        " and" in note("dynamic NTK")
    )
    # fix pass 226 (read r225 #1: a learner who tries the example in transformers gets no scaling at 2L): the block
    # says which L it takes and what transformers' `dynamic` reads (checked below on Llama 3.1's fields)
    assert dyn_block.count("max_position_embeddings") == 1
    assert (
        "This takes $L$ as 8 192; transformers' `dynamic` reads its $L$ from `max_position_embeddings`, 131 072 in"
        " Llama 3.1's file, so with that file it would leave every input up to 131 072 tokens unscaled, this one of"
        " 16 384 included." in " ".join(dyn_block.split())  # read r226 #2: not only 16 384 (the loop below: up to 16L)
    )
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    L = llama["rope_scaling"]["original_max_position_embeddings"]
    assert int(read) == L and llama["max_position_embeddings"] > L, llama
    assert (L, llama["max_position_embeddings"], 2 * L) == (8192, 131072, 16384)  # the block's 8 192, 131 072, 16 384
    llama3 = re.sub(r"\s+", " ", inspect.getsource(_compute_llama3_parameters))
    assert 'old_context_len = rope_parameters_dict["original_max_position_embeddings"]' in llama3
    dynamic = inspect.getsource(_compute_dynamic_ntk_parameters).split('"""')[-1]  # the code after the docstring
    assert "config.max_position_embeddings" in dynamic and "original_max_position_embeddings" not in dynamic
    d, base = llama["head_dim"], llama["rope_theta"]
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    for stored, scales in ((L, True), (llama["max_position_embeddings"], False)):
        factor = llama["rope_scaling"]["factor"]
        hf = hf_inv_freq(
            d, max_position_embeddings=stored, seq_len=2 * L, rope_type="dynamic", rope_theta=base, factor=factor
        )
        assert torch.allclose(hf.double(), theta, rtol=1e-6, atol=0) != scales, stored  # float32 frequencies
    # "takes its $L$ from `max_position_embeddings`": the table's dynamic NTK row, pair i divided by 9^(2i/126) at 2L,
    # comes back for that field at L and for no other value tried, below or above 2L
    factor = llama["rope_scaling"]["factor"]
    table = 9.0 ** (2 * torch.arange(d // 2, dtype=torch.float64) / (d - 2))
    for stored in (L // 2, 3 * L // 4, L, 5 * L // 4, 3 * L // 2, 2 * L, 4 * L, 16 * L):
        hf = hf_inv_freq(
            d, max_position_embeddings=stored, seq_len=2 * L, rope_type="dynamic", rope_theta=base, factor=factor
        )
        matches = torch.allclose(theta / hf.double(), table, rtol=1e-5, atol=0)  # float32 frequencies
        assert matches == (stored == L), stored
    # "would leave every input up to 131 072 tokens unscaled": with the file's 16L, inputs of L + 1 to 16L keep theta
    for seq_len in (L + 1, 2 * L, 8 * L, 16 * L):
        hf = hf_inv_freq(
            d, max_position_embeddings=16 * L, seq_len=seq_len, rope_type="dynamic", rope_theta=base, factor=factor
        )
        assert torch.allclose(hf.double(), theta, rtol=1e-6, atol=0), seq_len


# ---- core terms: the offset's sign, unique, the base's field, fast pairs' turns, fixed and effective factor ------


def test_offset_is_key_minus_query_and_negative_for_an_earlier_key():
    """The page: "key position minus query position, $n - m$, for a query at position $m$ and a key at $n$, negative
    for an earlier key": posenc's grid of offsets, and RoPE's score, which depends on the positions through this
    offset and not through its negative. The distance row, "never negative", and the block under the table,
    :data:`DISTANCE_BLOCK`: "Chapters 3 and 5 also use the word *distance* for the signed offset: chapter 3 writes it
    $j - i$, chapter 5 writes it $r$. Chapter 3 also uses the word for the offset's size, as this page does. Chapter 5
    never says offset, so the offset row does not link it": chapter 5's own definition of $r$, and no "offset"
    anywhere in its markdown."""
    ((formula, sign),) = re.findall(
        r"key position minus query position, \$([^$]+)\$, for a query at position \$m\$ and a key at \$n\$,"
        r" (negative|positive) for an earlier key; also called the relative position \|",
        row("offset"),
    )
    naming = " ".join(block("Offset and distance in other chapters").split())
    assert re.findall(DISTANCE_ROW, row("distance | 距离")) == ["negative"]
    ((other, other_5, _, _, five, letter, size, no_offset),) = re.findall(DISTANCE_BLOCK, naming)
    # "chapter 5 writes it $r$" and "Chapter 5 never says offset": its r is this signed number, and the word is absent
    assert int(five) == int(other_5) == int(no_offset) == 5
    assert f"**Distance** ${letter} = n - m$: the key's position minus the query's." in chapter("05_decay")
    assert "offset" not in chapter("05_decay").lower()
    assert "05_decay" not in row("offset")
    # "Chapters 3 and 5 also use the word *distance* for the signed offset": chapter 3, linked in the offset row,
    # names this signed number the distance, key minus query; chapter 5 defines its distance r = n - m the same way;
    # the block says so
    assert int(other) == 3 and "{doc}`3 <../notebooks/03_relative>`" in row("offset")
    assert "The distance is always the key's position minus the query's, $j - i$" in chapter("03_relative")
    assert int(other_5) == 5
    assert "**Distance** $r = n - m$: the key's position minus the query's." in chapter("05_decay")
    # "Chapter 3 also uses the word for the offset's size, as this page does": chapter 3's ALiBi penalty, m |j - i|,
    # "grows linearly with the distance"
    assert "subtracts $m\\,|j - i|$ from each logit: a penalty that grows linearly with the distance" in " ".join(
        chapter("03_relative").split()
    )
    assert int(size) == 3 and "Chapter 3 also uses the word for the offset's size, as this page does." in naming
    # "also called the relative position": chapter 8's own name for the same signed number
    assert "the book's relative position $j - i$, key minus query" in chapter("08_extrapolation")
    # the row gives the book's convention only and points to Letters for the chapters' letters: that table's $i$ row
    # lists the chapters that write j - i (i the query's position, j the key's) and the chapter that quotes i - j,
    # its distance row the chapters that write |i - j|
    assert "| key position minus query position, $n - m$," in row("offset") and "Letters" not in row("offset")
    assert "{ref}`Letters <glossary-letters>`." in block("Offset and distance in other chapters")
    assert "write $j - i$" not in row("offset") and "i - j" not in row("offset")
    ((listed,),) = [
        re.findall(r"\| a query's position in chapters ([\d, and]+), with \$j\$ the key's;", letters("$i$"))
    ]
    ((quotes,),) = [
        re.findall(r"the key's; chapter (\d+) also quotes other sources' \$i - j\$, query minus key;", letters("$i$"))
    ]
    # fix pass 265 (read r264 #2): $|j - i|$ in chapters 1, 3, 6 and 11, chapter 6 writing both orders
    # fix pass 279 (read r275a #2): each chapter once; chapter 6 under |i - j|, "which also writes |j - i| once"
    ((bars_delta_first, bars_delta, bars_j_i_chapter_1, bars_j_i_first, bars_j_i, bars_i_j),) = re.findall(
        r"; unsigned, \$\\lvert \\Delta\\rvert\$ in chapters (\d+) and (\d+), \$\\lvert j - i\\rvert\$ in chapters"
        r" (\d+), (\d+) and (\d+) and \$\\lvert i - j\\rvert\$ in chapter (\d+), which also writes \$\\lvert j -"
        r" i\\rvert\$ once;",
        letters("distance"),
    )
    bars_j_i_sixth = bars_i_j
    assert int(bars_j_i_chapter_1) == 1 and "so it depends only on $|j - i|$ and cannot tell before from after" in (
        chapter("01_why_position")
    )
    writes, reversed_ = set(), set()
    for path in sorted(glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))):
        if re.search(r"j ?- ?i\b", chapter(Path(path).stem)):
            writes.add(int(Path(path).name[:2]))
        if re.search(r"\bi\s*(?:-|\u2212)\s*j\b", chapter(Path(path).stem)):
            reversed_.add(int(Path(path).name[:2]))
    assert {int(n) for n in re.findall(r"\d+", listed)} == writes, (listed, writes)
    # "chapter 3 also quotes other sources' $i - j$, query minus key", and the distance row's "$|\Delta|$ in chapters
    # 2 and 10, $|i - j|$ in chapter 6 and $|j - i|$ in chapters 3, 6 and 11": every chapter whose markdown writes
    # i - j, and each
    # one's use: chapter 3 only as a tutorial's or Transformer-XL's sign convention, chapter 6 only between bars,
    # chapter 11 only squared, never as a signed offset; chapter 10 writes the distance |Delta|, chapter 11 |j - i|
    assert reversed_ == {int(quotes), int(bars_i_j), int(bars_j_i)}, (quotes, bars_i_j, bars_j_i, reversed_)
    assert (int(quotes), int(bars_delta_first), int(bars_i_j), int(bars_delta), int(bars_j_i)) == (3, 2, 6, 10, 11)
    assert int(bars_j_i_sixth) == int(
        bars_i_j
    ) == 6 and "$j - i$ (on $\\lvert j - i\\rvert$ in the symmetric form)" in (chapter("06_alibi"))
    assert int(bars_j_i_first) == 3 and "subtracts $m\\,|j - i|$ from each logit" in " ".join(
        chapter("03_relative").split()
    )
    assert "The *distance* is its size, $|\\Delta|$." in chapter("10_rope_today")
    assert "it depends only on the distance $|\\Delta|$ and cannot tell left from right" in chapter("02_absolute")
    assert "its *distance* is $|j - i|$" in chapter("11_learned_position")
    c3 = chapter("03_relative")
    assert len(re.findall(r"i - j", c3)) == 2 and "defines the distance as $i - j$ in its text" in c3
    assert "Transformer-XL writes the logit, in its own sign convention $i - j$," in c3
    assert "R_{i-j}" in c3 and "This book uses $j - i$, key minus query" in c3  # Transformer-XL's R, query minus key
    for name, between in (("06_alibi", {("|", "|")}), ("11_learned_position", {("(", ")")})):
        text = chapter(name).replace("\\lvert ", "|").replace("\\rvert", "|")
        uses = re.findall(r"(.)\s*i\s*-\s*j\s*(.)", text)
        assert set(uses) == between, (name, uses)
        assert ("(", ")") not in uses or text.count("(i - j)^2") == uses.count(("(", ")")), name  # only squared
    # the row's chapter column links exactly the chapters that use the word "offset" for key minus query (the quotes
    # of :func:`test_distance_and_offset_rows_name_the_chapters_that_use_them`); a chapter that writes j - i but never
    # says "offset", chapter 8, which calls it the relative position, is not linked
    linked = {int(n) for n in re.findall(r"\{doc\}`(\d+) <\.\./notebooks/", row("offset"))}
    assert linked == {1, 2, 3, 4, 6, 7, 10, 11}, linked
    for n in writes - linked:
        (path,) = glob.glob(str(ROOT / "notebooks" / f"{n:02d}_*.ipynb"))
        assert "offset" not in chapter(Path(path).stem).lower(), n
    assert writes - linked == {8}, writes
    assert "depends only on the offset $j - i$" in chapter("01_why_position")
    grid = posenc.relative_positions(6)  # [query, key]: key_pos - query_pos
    for m in range(6):
        for n in range(6):
            assert grid[m, n] == evaluate(formula, n=n, m=m), (m, n)
            if n < m:
                assert (evaluate(formula, n=n, m=m) < 0) == (sign == "negative"), (m, n)
    d, g = 8, torch.Generator().manual_seed(0)
    q, k = torch.randn(2, d, generator=g, dtype=torch.float64)

    def score(m: int, n: int) -> float:
        return float(
            (posenc.rope_matrix(m, d, dtype=torch.float64) @ q) @ (posenc.rope_matrix(n, d, dtype=torch.float64) @ k)
        )

    for m, n in ((15, 12), (12, 15), (17, 10)):
        offset = int(evaluate(formula, n=n, m=m))
        assert abs(score(m, n) - score(20, 20 + offset)) < 1e-9, (m, n)
        assert abs(score(m, n) - score(20, 20 - offset)) > 1e-6, (m, n)


def test_unique_for_a_relative_encoding_asks_about_offsets():
    """The block "Unique and linear relation for a relative encoding": "*Unique* then asks whether distinct offsets get
    distinct labels", chapter 3's "distinct
    distances" in its signed sense, key minus query: Shaw's labels tell the offsets r and -r apart, which one unsigned
    distance would merge."""
    relative = block("Unique and linear relation for a relative encoding")
    assert relative.startswith(
        "A relative encoding has no vector $\\mathrm{PE}(p)$ to shift, so chapter 3 reads chapter 1's two properties"
        " for offsets."
    )
    assert "They encode distances, not positions, so there is no $\\mathrm{PE}(p)$ to shift." in chapter("03_relative")
    (word,) = re.findall(r"\*Unique\* then asks whether distinct (\w+) get distinct labels\.", relative)
    c3 = chapter("03_relative")
    assert "**Unique** asks whether distinct distances get distinct labels." in c3
    assert "The distance is always the key's position minus the query's, $j - i$" in c3  # signed: the page's offset
    k = 3
    labels, offsets = posenc.shaw_relative_index(8, k), posenc.relative_positions(8)
    for r in range(1, k + 1):
        assert set(labels[offsets == r].tolist()).isdisjoint(labels[offsets == -r].tolist()), r
    assert word == "offsets" and "never negative" in row("distance | 距离")


def test_base_row_names_rope_parameters():
    """The base row: "a config's `rope_theta` is $b$, not a frequency $\\theta_i$": a config's `rope_theta` B gives the
    frequencies B^(-2i/d), of which none is B (so writing "is $\\theta_0$" or any other frequency fails). The Core
    block: "Transformers 5 keeps `rope_theta` inside `rope_parameters`, where a model can set one per layer type": a
    config built with `rope_theta` keeps it in `rope_parameters` and has no `rope_theta` of its own; Gemma 3's has one
    dict per layer type, each with its own base: "Gemma 3's base is 10 000 in its sliding-window layers and 1 000 000
    in its full-attention ones" (read r199), its defaults in transformers. "Transformers' code calls RoPE's
    frequencies `inv_freq`": the Llama rotary module's buffer holds them."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    (is_what,) = re.findall(r"a config's `rope_theta` is \$(\w+)\$, not a frequency \$\\theta_i\$ \|", row("base"))
    assert row("base").startswith("| base | 底数 | the $b$ in RoPE's frequencies;")
    for b, d in ((12_345.0, 16), (500_000.0, 128)):
        cfg = transformers.LlamaConfig(
            hidden_size=2 * d,
            num_attention_heads=2,
            head_dim=d,
            rope_parameters={"rope_type": "default", "rope_theta": b},
        )
        freqs = LlamaRotaryEmbedding(cfg).inv_freq.double()
        power = exponent(row("frequency"), "RoPE sets $\\theta_i = b^")
        expected = torch.tensor([b ** evaluate(power, i=i, d=d) for i in range(d // 2)], dtype=torch.float64)
        assert is_what == "b" and torch.allclose(freqs, expected, rtol=1e-6, atol=0), (b, d)  # `inv_freq`: theta_i
        assert not torch.isclose(freqs, torch.tensor(b, dtype=torch.float64), rtol=1e-3).any()  # rope_theta: no theta_i
    core = models_block("## Core terms")
    assert "- Transformers' code calls RoPE's frequencies `inv_freq`." in core
    assert (
        "Transformers 5 keeps `rope_theta` inside `rope_parameters`, where a model can set one per layer type." in core
    )
    cfg = transformers.LlamaConfig(rope_theta=12_345.0)
    assert cfg.rope_parameters["rope_theta"] == 12_345.0 and not hasattr(cfg, "rope_theta")
    assert "rope_theta" not in cfg.to_dict() and cfg.to_dict()["rope_parameters"]["rope_theta"] == 12_345.0
    gemma = transformers.Gemma3TextConfig()
    assert set(gemma.rope_parameters) == set(gemma.layer_types), gemma.rope_parameters
    assert len({p["rope_theta"] for p in gemma.rope_parameters.values()}) == 2, gemma.rope_parameters
    # read r199: the case, "Gemma 3's base is 10 000 in its sliding-window layers and 1 000 000 in its full-attention
    # ones": transformers 5.24's Gemma 3 defaults, one base per layer type (`rope_local_base_freq`'s and the global's)
    ((local, full),) = re.findall(
        r"Gemma 3's base is ([\d ]+) in its sliding-window layers and ([\d ]+) in its full-attention ones\.", core
    )
    bases = {kind: params["rope_theta"] for kind, params in gemma.rope_parameters.items()}
    assert bases == {"sliding_attention": float(local.replace(" ", "")), "full_attention": float(full.replace(" ", ""))}
    assert {"sliding_attention", "full_attention"} == set(gemma.layer_types), gemma.layer_types  # both kinds used
    assert gemma.default_theta == {"local": 10_000.0, "global": 1_000_000.0}, gemma.default_theta
    # read r220: "Gemma 3 27B's configuration also applies *position interpolation* with `factor` 8 in its
    # full-attention layers": posenc's copy of Gemma 3 27B's config.json sets `rope_scaling` linear (transformers' name
    # for PI), factor 8, and transformers puts a config's `rope_scaling` on the full-attention layers alone
    assert (
        "Gemma 3 27B's configuration, for one, also applies *position interpolation* with `factor` 8 in its"
        " full-attention"
        " layers." in core
    )
    assert MODEL_ROPE_CONFIGS["gemma-3-27b"]["rope_scaling"] == {"rope_type": "linear", "factor": 8.0}
    scaled = transformers.Gemma3TextConfig(rope_scaling={"rope_type": "linear", "factor": 8.0}).rope_parameters
    assert (scaled["full_attention"]["rope_type"], scaled["full_attention"]["factor"]) == ("linear", 8.0), scaled
    assert scaled["sliding_attention"]["rope_type"] == "default" and "factor" not in scaled["sliding_attention"]


def test_llama3_and_yarn_count_turns_over_one_position_more():
    """The row *turns in $L$*: "how many *turns*, fractions included, pair $i$ makes over $L$ positions, $L/\\lambda_i$;
    YaRN and
    `llama3` set their bounds in them":
    the angle at offset $L$, in turns, one offset more than the fast pair row's last offset $L - 1$ (that detail is
    the collapsed block's, below); the rows that use the count, `llama3`'s
    "bounds ...
    in *turns in $L$*" and the betas' "in *turns in $L$*", mark it as a row (the page's italics); the fast pair
    row's test over offsets "up to $L - 1$"; and the
    collapsed block "Turns in L and the fast pairs' distances": "For the bounds of `llama3` and YaRN it counts turns in
    $L$, $L\\theta_i/(2\\pi)$, as their code does. In Llama 3.1's head the two counts agree: pairs 0 to
    34 are fast and turn at least once in $L$, ... They differ only for a pair that turns once in $L$ but not in
    $L - 1$." (the count is the angle at distance $L$, one position past training's last, $L - 1$; the edge case
    is checked below on a head where it occurs). transformers' `llama3` keeps a pair when
    this count exceeds `high_freq_factor`, and its `yarn` ramp starts and ends at the pairs whose count is
    `beta_fast` and `beta_slow`. A short L (16) makes L and L - 1 differ enough to tell apart. The block's "They
    differ only for a pair that turns once in $L$ but not in $L - 1$" is swept below; the row ends at its definition
    (read r186: its exception had hedged the row; the block already said it)."""

    ((fractions, over, in_l),) = re.findall(
        r"\| how many \*turns\*, (fractions included), pair \$i\$ makes over \$([^$]+)\$ positions, \$([^$]+)\$;"
        r" YaRN and `llama3` set their bounds in them \|",
        row("turns in $L$"),
    )
    assert "except" not in row("turns in $L$") and "fast" not in row("turns in $L$")  # the definition alone
    assert "past training's last" not in row("turns in $L$")  # the L versus L - 1 detail: the block "Turns in L ..."
    # the chapter column: chapter 8 counts its betas in this unit (its cell 7: "These two thresholds, counted in turns
    # within $L$, are YaRN's *betas*", and its code's `turns = L * theta / (2 * math.pi)`, the row's $L/\\lambda_i$)
    linked = re.findall(r"\{doc\}`([^`]+)`", cells("turns in $L$")[3])
    assert linked == [
        "8 <../notebooks/08_extrapolation>",
        "10 <../notebooks/10_rope_today>",
        "Reading model code <reading_code>",
    ], linked
    assert "These two thresholds, counted in turns within $L$, are YaRN's *betas*" in chapter("08_extrapolation")
    nb8 = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    code8 = "".join("".join(c["source"]) for c in nb8["cells"] if c["cell_type"] == "code")
    assert "turns = L * theta / (2 * math.pi)" in code8 and in_l == "L/\\lambda_i", in_l
    step = 1  # over L positions: the angle at training's last offset, L - 1, plus one
    assert "in *turns in $L$*" in row("Llama 3.1 scaling (`llama3`)") and "in *turns in $L$*" in row("betas")
    (count,) = re.findall(
        # fix pass 281 (reads r277a #1, #2 and r277b #2): the block says which count the main line's bounds use
        # fix pass 285 (reads r280a #2 and r280b #1): the main line's one count, for every pair, is the code's
        # fix pass 286 (reads r281a #1 and r281b #1): the main line counts over L - 1, as the rows do; the code's count,
        # turns in L, is the one the main line gives the two rules' bounds in
        r"The code of `llama3` and YaRN counts every pair's turns in \$L\$, \$([^$]+)\$, and the main line gives their"
        r" bounds in that count\.",
        block("Turns in L and the fast pairs' distances"),
    )
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND, row("fast pair"))
    lhs = inequality.split("\\ge")[0]  # (L - 1) theta_i: the angle over training's offsets
    d, b, L, s = 16, 100.0, 16, 4.0
    theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    turns = [evaluate(count, L=L, theta=float(t)) for t in theta]
    for t, n in zip(theta, turns):  # one position further: the count is the angle at offset L, in turns
        assert abs(n - evaluate(lhs, L=L + 1, theta=float(t)) / (2 * math.pi)) < 1e-12
        assert abs(n - evaluate(lhs, L=L + step, theta=float(t)) / (2 * math.pi)) < 1e-12
        assert abs(n - evaluate(over, L=L) * float(t) / (2 * math.pi)) < 1e-12  # turns over the row's L positions
        assert abs(n - evaluate(in_l, L=L, lam=2 * math.pi / float(t))) < 1e-12  # the row's L over the wavelength
        # the fast pair row's test is at least one turn by offset L - 1, one less than the turn row's L
        assert evaluate(inequality, L=L, theta=float(t)) == ((L - 1) * float(t) >= 2 * math.pi)
    # "fractions included": the count is a real number; in Llama 3.1's head (b = 5e5, d = 128, L = 8192) pair 35
    # makes 0.997 of a turn, just under the one turn an integer count would round it to
    llama_turns = 8192 * 500000.0 ** (-torch.arange(0, 128, 2, dtype=torch.float64) / 128) / (2 * math.pi)
    assert fractions == "fractions included" and 0.99 < float(llama_turns[35]) < 1 < float(llama_turns[34])
    assert any(abs(x - round(x)) > 0.1 for x in turns + llama_turns.tolist())
    # "They differ only for a pair that turns once in $L$ but not in $L - 1$": pair 2 of this head at L = 20
    assert "They differ only for a pair that turns once in $L$ but not in $L - 1$." in block(
        "Turns in L and the fast pairs' distances"
    )
    short = [
        i
        for i, t in enumerate(theta)
        if evaluate(count, L=20, theta=float(t)) >= 1 > evaluate(lhs, L=20, theta=float(t)) / (2 * math.pi)
    ]
    assert short == [2], short
    # the block's "They differ only for a pair that turns once in $L$ but not in $L - 1$", once the row's last
    # sentence (read r182: the fast pair row and this one gave two near-identical criteria, their agreement only in the
    # block; read r183: "but for a pair on the boundary" read as a contrast, the exception unnamed): over a sweep
    # of heads and lengths, every fast pair turns at least once in L, and the pairs that do but are not fast are
    # exactly those that turn at least once over L positions but not over L - 1 (at most one in each head swept); the
    # head above at L = 20 has such a pair; the block names the exception, the row does not
    assert "but for a pair on the boundary" not in page()
    assert "a pair that turns once in $L$ but not in $L - 1$" in block("Turns in L and the fast pairs' distances")
    with_extra = 0
    for width, base_, trained in [
        (w, b_, n) for w in (16, 64, 128, 256) for b_ in (1e2, 1e4, 5e5, 1e6) for n in range(16, 4096, 101)
    ]:
        freqs = base_ ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
        at_least_one = {i for i, f in enumerate(freqs.tolist()) if evaluate(in_l, L=trained, lam=2 * math.pi / f) >= 1}
        fast_pairs = {i for i, f in enumerate(freqs.tolist()) if evaluate(inequality, L=trained, theta=f)}
        extra = at_least_one - fast_pairs
        assert fast_pairs <= at_least_one and len(extra) <= 1, (width, base_, trained, extra)
        for i in extra:  # the exception: a turn over L positions, less than one over L - 1
            assert (trained - 1) * float(freqs[i]) < 2 * math.pi <= trained * float(freqs[i])
        exception = {i for i, f in enumerate(freqs.tolist()) if (trained - 1) * f < 2 * math.pi <= trained * f}
        assert extra == exception, (width, base_, trained, extra, exception)
        with_extra += len(extra)
    assert with_extra > 0, with_extra
    # Llama 3.1's head: the pairs turning at least once in L are the fast pairs, and they are pairs 0 to 34
    ((first, last),) = re.findall(
        # fix pass 285 (reads r280a #2 and r280b #1): "sort Llama 3.1's pairs alike", the brief's words
        r"The two counts sort Llama 3\.1's pairs alike: pairs (\d+) to (\d+) are fast and turn at least once in \$L\$,",
        page(),
    )
    width, base, trained, _ = llama31_head()
    llama = base ** (-torch.arange(0, width, 2, dtype=torch.float64) / width)
    once = [i for i, t in enumerate(llama) if evaluate(count, L=trained, theta=float(t)) >= 1]
    fast = [i for i, t in enumerate(llama) if evaluate(inequality, L=trained, theta=float(t))]
    assert once == fast == list(range(int(first), int(last) + 1)), (once, fast)
    # the count's angle at offset $L$, one position further than training's longest offset, $L - 1$
    assert evaluate("L", L=L) - evaluate("L - 1", L=L) == step == 1
    for j in range(1, d // 2 - 1):  # llama3: a bound between pair j's count over L and over L - 1 positions
        over_l_minus_1 = (L - 1) * float(theta[j]) / (2 * math.pi)
        high = (turns[j] + over_l_minus_1) / 2
        scaled = hf_llama3(d, b, s, high, high / 8, L)
        kept = torch.isclose(scaled.double(), theta, rtol=1e-6, atol=0)
        assert kept.tolist() == [n > high for n in turns], (j, high)
    a, z = 2, 6  # yarn without truncation: the ramp runs from pair a, kept, to pair z, divided by s
    scaled = hf_inv_freq(
        d,
        rope_type="yarn",
        rope_theta=b,
        factor=s,
        original_max_position_embeddings=L,
        beta_fast=turns[a],
        beta_slow=turns[z],
        truncate=False,
    )
    share = (theta - scaled.double()) / (theta - theta / s)  # 0: kept, 1: divided by s
    expected = ((torch.arange(d // 2, dtype=torch.float64) - a) / (z - a)).clamp(0, 1)
    assert torch.allclose(share, expected, atol=1e-4, rtol=0), (share, expected)  # float32 frequencies


def test_fixed_and_effective_scale_rows_name_the_chapters_words():
    """The headwords are the chapters' words: "static or fixed (scaling)", chapter 7's and chapter 10's "static" and
    chapter 8's defined "fixed", and "effective factor", chapter 7's; so the Letters table does not list them, and
    the page never says "effective scale"."""
    assert row("static or fixed (scaling) | 静态或固定") and row("effective factor | 有效因子")
    for word in ("fixed (scaling)", "effective factor", "effective scale"):
        with pytest.raises(AssertionError):
            letters(word)
    assert "effective scale" not in page()
    static = {
        "07_beyond": "The `linear`, `yarn` and `llama3` rope_types are static.",
        "10_rope_today": "PI, YaRN and the `llama3` rule are *static*",
    }
    for name, words in static.items():
        assert words in chapter(name), name
    assert "| fixed | one stretch for every input, short ones included;" in chapter("08_extrapolation")
    assert "Dynamic NTK's effective factor is not the configuration's `factor` $s$." in chapter("07_beyond")


# ---- encodings: the half layout's partner, CoPE's gate ---------------------------------------------------------


def test_half_layouts_partner_in_transformers():
    """The row: "RoPE pairs coordinate $i$ with $i + d/2$", and the Encodings block "In models and code": "Under
    *partial rotary*, which rotates only the first $d_{\\text{rot}}$ dimensions, the *half layout* pairs coordinate $i$
    with $i + d_{\\text{rot}}/2$, as GPT-NeoX's code does" (read r178: the row's partial-rotary clause moved there) and
    "Transformers' Llama code uses the *half layout*, with `rotate_half`": the coordinate that a one-hot query's
    rotation reaches, in transformers' Llama code (the whole head) and GPT-NeoX code (half the head rotated), where the
    coordinates past the first $d_{\\text{rot}}$ pass through unchanged."""
    from transformers.models.gpt_neox.modeling_gpt_neox import (
        GPTNeoXRotaryEmbedding,
        apply_rotary_pos_emb as neox_rotate,
    )
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb as llama_rotate

    (whole,) = re.findall(
        r"\| RoPE pairs coordinate \$i\$ with \$([^$]+)\$; also called GPT-NeoX style \|", row("half layout")
    )
    ((first, partial),) = re.findall(
        r"- Under \*partial rotary\*, which rotates only the (first) \$d_\{\\text\{rot\}\}\$ dimensions, the \*half"
        r" layout\* pairs coordinate \$i\$ with \$([^$]+)\$, as GPT-NeoX's code does\.",
        models_block("## Encodings"),
    )
    assert "- Transformers' Llama code uses the *half layout*, with `rotate_half`;" in models_block("## Encodings")
    d = 16
    params = {"rope_type": "default", "rope_theta": 10_000.0}
    llama = LlamaRotaryEmbedding(
        transformers.LlamaConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=params)
    )
    neox = GPTNeoXRotaryEmbedding(
        transformers.GPTNeoXConfig(
            hidden_size=2 * d, num_attention_heads=2, rope_parameters={**params, "partial_rotary_factor": 0.5}
        )
    )
    for rope, rotate, expr in ((llama, llama_rotate, whole), (neox, neox_rotate, partial)):
        cos, sin = rope(torch.zeros(1, 1, 2 * d), torch.tensor([[1]]))  # position 1: every pair's angle in (0, 1]
        rotated = cos.shape[-1]
        assert rotated == (d if rope is llama else d // 2), rotated
        for i in range(rotated // 2):
            x = torch.zeros(1, 1, 1, d)
            x[..., i] = 1.0
            out, _ = rotate(x, x, cos, sin)
            reached = (out.flatten().abs() > 1e-6).nonzero().flatten().tolist()
            partner = int(evaluate(expr, i=i, d=d, drot=rotated))
            assert reached == [i, partner], (rotated, i, reached, partner)
            if rope is neox:
                assert partner != i + d // 2  # the partial head's partner is not i + d/2
        for j in range(rotated, d):  # "rotates only the first d_rot dimensions": the rest pass through unchanged
            x = torch.zeros(1, 1, 1, d)
            x[..., j] = 1.0
            out, _ = rotate(x, x, cos, sin)
            assert first == "first" and torch.equal(out, x), (rotated, j)


def test_transformers_models_with_the_interleaved_layout():
    """The interleaved layout row: "as Meta's Llama code and some transformers models do", and the Encodings block:
    "Other transformers models use the *interleaved layout*: GLM's, ERNIE 4.5's, Helium's and Cohere's `rotate_half`
    pair neighbours, and DeepSeek-V3 and Mistral 4 do when `rope_interleave` is true, their default": a one-hot
    coordinate 2i reaches 2i + 1 under each named `rotate_half` (i + d/2 under Llama's), and DeepSeek-V3's and
    Mistral 4's configurations default `rope_interleave` to true and then call their interleaved rotation, which turns
    input coordinates 2i and 2i + 1 together, as one pair (it returns the pair at i and i + d/2)."""
    import importlib

    assert "| RoPE pairs neighbours, $2i$ and $2i + 1$, as Meta's Llama code and some transformers models do;" in row(
        "interleaved layout"
    )
    assert (
        # fix pass 228 (read r227 #1: "GLM's" read as every GLM folder; GLM-4.5's glm4_moe pairs the halves)
        "- Other transformers models use the *interleaved layout*: the `glm` and `glm4` folders', ERNIE 4.5's, Helium's"
        " and Cohere's `rotate_half` pair neighbours, and DeepSeek-V3 and Mistral 4 do when `rope_interleave` is true,"
        " their default. GLM-4.5's folder, `glm4_moe`, pairs the halves instead. A checkpoint ported between layouts"
        " must reorder its rows: see {doc}`Reading model code <reading_code>`." in models_block("## Encodings")
    )
    d = 8

    def reached(rotate, i):
        x = torch.zeros(d)
        x[i] = 1.0
        return (rotate(x).abs() > 1e-9).nonzero().flatten().tolist()

    for name in ("glm", "glm4", "ernie4_5", "helium", "cohere", "llama", "glm4_moe"):
        rotate = importlib.import_module(f"transformers.models.{name}.modeling_{name}").rotate_half
        half = name in ("llama", "glm4_moe")  # the half layout: i with i + d/2
        for i in range(0, d, 2):
            assert reached(rotate, i) == ([i + 1] if not half else [(i + d // 2) % d]), (name, i)
    for name, config in (("deepseek_v3", "DeepseekV3Config"), ("mistral4", "Mistral4Config")):
        assert getattr(transformers, config)().rope_interleave is True, name
        module = importlib.import_module(f"transformers.models.{name}.modeling_{name}")
        assert "if self.config.rope_interleave:" in inspect.getsource(module)
        cos, sin = torch.full((1, d), math.cos(0.3)), torch.full((1, d), math.sin(0.3))  # one angle for every pair
        for i in range(d // 2):
            for j in (2 * i, 2 * i + 1):  # neighbours: both turn into the same pair, returned at i and i + d/2
                x = torch.zeros(1, 1, 1, d)
                x[..., j] = 1.0
                out, _ = module.apply_rotary_pos_emb_interleave(x, x, cos, sin)
                got = (out.flatten().abs() > 1e-6).nonzero().flatten().tolist()
                assert got == [i, i + d // 2], (name, j, out)


def test_copes_gate_in_the_paper_and_in_the_reference_code():
    """The block "Where papers and code differ": "in CoPE, $\\sigma(q\\cdot k)$ in the paper's equations and
    $\\sigma(q\\cdot k/\\sqrt d)$ in its reference code, which posenc follows"; the gate row gives the form chapter 11
    computes, "in chapter 11's CoPE, the sigmoid of the query–key logit, $\\sigma(q \\cdot k/\\sqrt d)$" (fix pass 272).
    The reference code, facebookresearch/RAM `projects/cope/src/cope/context_position.py`, computes
    `gates = torch.sigmoid(gate_logits / math.sqrt(self.cfg.head_dim))`; posenc.CoPE follows it (its module docstring
    says so) and chapter 11 says the paper's equations omit the square root. So posenc's gates must be the page's
    reference-code form and not its paper form."""
    from posenc.methods import cope

    ((paper, code),) = re.findall(
        r"in CoPE, \$\\sigma\((.+?)\)\$ in the paper's equations and \$\\sigma\((.+?)\)\$ in its reference code,"
        r" which posenc follows \|",
        note("gate"),
    )
    # fix pass 241 (read r240 #1: "of the query-key score" against the page's score, the raw q . k, while posenc and
    # the reference code take sigma(q . k / sqrt(d))): the logit, the reference code's, and the paper's score (the
    # note's two formulas, checked above)
    # fix pass 272 (read r269b #5, unclear: a paper-versus-code caveat in the cell, which the note above gives): the
    # formula as the reference code and chapter 11 compute it, scoped to chapter 11's CoPE; evaluated below
    (row_form,) = re.findall(
        r"^\| gate \| 门控 \| a value in \$\(0, 1\)\$ saying how much a token counts; in chapter 11's CoPE, the"
        r" sigmoid of the query–key logit, \$\\sigma\((.+?)\)\$ \|",
        row("gate"),
    )
    assert (
        "In CoPE a gate is computed from the content, $g_{ij} = \\sigma\\big(q_i \\cdot k_j / \\sqrt{d_h}\\big)$"
        in (chapter("11_learned_position"))
    )
    assert "sqrt" in code and "sqrt" not in paper, (paper, code)  # the code's logit, the paper's score
    assert "Follows the reference implementation (facebookresearch/RAM" in cope.__doc__
    assert "computed as ``sigmoid(q . k / sqrt(d))``" in re.sub(r"\s+", " ", cope.__doc__)
    assert (
        "Both $\\sqrt{d_h}$, in the gate and in the position logit, are the reference code's default; the paper's"
        " equations omit them." in chapter("11_learned_position")
    )

    def gate(form: str, qk: torch.Tensor, d: int) -> torch.Tensor:
        return torch.sigmoid(evaluate(form.replace("q\\cdot k", " qk ").replace("\\sqrt d", "(d^(1/2))"), qk=qk, d=d))

    d, g = 16, torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 5, d, generator=g) * 2
    gates = posenc.CoPE(d, npos_max=8)._gates(q, k)
    qk = q @ k.transpose(-1, -2)
    assert torch.allclose(gates, gate(code, qk, d), atol=1e-6, rtol=0)
    assert torch.allclose(gates, gate(row_form.replace("q \\cdot", "q\\cdot"), qk, d), atol=1e-6, rtol=0)  # the code's
    assert not torch.allclose(gates, gate(paper, qk, d), atol=1e-2, rtol=0)


# ---- maths rows: rotation matrix, complex form, CPD; the Letters table's ALiBi slope  ---------------------------


def test_rotation_complex_form_and_cpd_rows():
    """The rows "an orthogonal matrix with determinant 1", "turning it by an angle $\\gamma$ multiplies it by
    $e^{\\mathrm{i}\\gamma}$" and "whenever the weights $\\eta_u$ sum to zero": posenc's rotation matrices, a pair
    turned by posenc against the complex product, and ALiBi's bias $-|x - y|$, which is CPD, on random weights."""
    (det,) = re.findall(r"an orthogonal matrix with determinant (-?\d+) \|", row("rotation matrix"))
    for d in (2, 8, 64):
        for p in (1, 5, 40):
            R = posenc.rope_matrix(p, d, dtype=torch.float64)
            assert torch.allclose(R @ R.T, torch.eye(d, dtype=torch.float64), atol=1e-12, rtol=0), (d, p)
            assert abs(float(torch.linalg.det(R)) - int(det)) < 1e-9, (d, p)
    (power,) = re.findall(
        r"turning it by an angle \$\\gamma\$ multiplies it by \$e\^\{(.+?)\}\$", row("complex form (of RoPE)")
    )
    sign = {"\\mathrm{i}\\gamma": 1, "-\\mathrm{i}\\gamma": -1}[power]
    x = torch.tensor([0.3, -1.2], dtype=torch.float64)
    for p in (1, 2, 7):  # a head of width 2: its one pair turns by p theta_0 = p radians
        turned = posenc.rope_matrix(p, 2, dtype=torch.float64) @ x
        product = complex(x[0], x[1]) * complex(math.cos(sign * p), math.sin(sign * p))
        assert abs(complex(*turned.tolist()) - product) < 1e-12, p
    (total,) = re.findall(
        r"whenever the weights \$\\eta_u\$ sum to (\w+) \|", row("conditionally positive definite (CPD) kernel")
    )
    assert "for every weight vector $c$ whose entries sum to 0" in chapter("11_learned_position")
    # the row's inequality, as the check below computes it: the double sum is at least 0 (up to float64 rounding)
    # fix pass 275 (read r272b #7, omission: KERPLE's definition asks for a symmetric bias, and the inequality alone
    # constrains only B's symmetric part): "a symmetric bias", with the equation that says it
    assert (
        "a symmetric bias $B$ of two positions, $B(x, y) = B(y, x)$, with $\\sum_{u,v} \\eta_u \\eta_v B(x_u, x_v)"
        " \\ge 0$ for any positions" in row("conditionally positive definite (CPD) kernel")
    )
    total = {"zero": 0.0, "one": 1.0}[total]
    x = torch.arange(6, dtype=torch.float64)
    bias = -(x[:, None] - x[None, :]).abs()
    g = torch.Generator().manual_seed(0)
    for _ in range(500):
        alpha = torch.randn(6, generator=g, dtype=torch.float64)
        alpha = alpha - alpha.mean() + total / 6
        assert float(alpha @ bias @ alpha) >= -1e-12, alpha
    # fix pass 275 (read r272b #7): why the row says symmetric. The double sum sees only B's symmetric part, so
    # without the word a lopsided table would pass: ALiBi's bias plus an antisymmetric part gives the same sums
    lopsided = bias + 3.0 * (x[:, None] - x[None, :])
    assert not torch.equal(lopsided, lopsided.T)
    for _ in range(100):
        alpha = torch.randn(6, generator=g, dtype=torch.float64)
        alpha = alpha - alpha.mean() + total / 6
        assert abs(float(alpha @ lopsided @ alpha) - float(alpha @ bias @ alpha)) < 1e-9, alpha
    # the biases chapter 11 checks for CPD are symmetric: ALiBi's two-sided bias above, and posenc's KERPLE tables,
    # both shapes, which read only the distance's size
    assert torch.equal(bias, bias.T)
    for kind in ("log", "power"):
        table = posenc.KerpleBias(2, kind=kind).bias_by_distance(x[:, None] - x[None, :]).detach()
        assert torch.equal(table, table.transpose(-1, -2)), kind


def test_rope_row_offset_and_turn_row_full_rotation():
    """The RoPE row: "turns coordinate pair $i$ of a query at $m$ by $m\\theta_i$ and of a key at $n$ by $n\\theta_i$,
    so their score depends on position only through $n - m$": posenc's apply_rope scores a query and a key the same
    when both move by the same amount, and differently when only the key moves. The turn row, "one full rotation,
    $2\\pi$": turning every pair by $2\\pi$ gives back the vector."""
    assert (
        # fix pass 251 (read r245 #1: theta_i came two rows before the frequency row, just after the sinusoidal
        # encoding's own theta_i): the row names it as the pair's frequency, a term (fix pass 253, reads r252 #1 and
        # r252b #1: "defined two rows below" broke the intro's "read these rows in order")
        "turns coordinate pair $i$ of a query at $m$ by $m\\theta_i$ and of a key at $n$ by $n\\theta_i$, with"
        " $\\theta_i$ the pair's *frequency*, so their score depends on position only through $n - m$"
        in row("rotary position embedding (RoPE)")
    )
    assert "| turn | 圈 | one full rotation, $2\\pi$ |" in row("turn")
    d = 16
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, d, generator=g, dtype=torch.float64)

    def score(m: int, n: int) -> float:
        cos_m, sin_m = posenc.rope_cos_sin(torch.tensor([m]), d, dtype=torch.float64)
        cos_n, sin_n = posenc.rope_cos_sin(torch.tensor([n]), d, dtype=torch.float64)
        return float(posenc.apply_rope(q[None], cos_m, sin_m) @ posenc.apply_rope(k[None], cos_n, sin_n).T)

    for m, n in ((5, 3), (3, 5), (0, 40), (100, 7)):
        for shift in (1, 17, 900):
            assert abs(score(m + shift, n + shift) - score(m, n)) < 1e-9, (m, n, shift)
        assert abs(score(m, n + 1) - score(m, n)) > 1e-6, (m, n)
    full = torch.full((1, d), 2 * math.pi, dtype=torch.float64)
    assert torch.allclose(posenc.apply_rope(q[None], full.cos(), full.sin()), q[None], atol=1e-12, rtol=0)


def test_notation_block_alibi_slope_chapters():
    """The Letters table: "$m$ | a query's position | a key's position in chapter 9; ALiBi's *slope*, $m$ in chapter 3
    and $m_h$ in chapter 6; YaRN's *attention factor* $m(s)$ in chapter 10, Reading model code and the claims page",
    against the chapters' and pages' own words (chapter 6 writes the slope $m_h$, chapter 3 plain $m$). The page itself
    gives the slope no letter (read r181: $m_h$ beside the query's $m$ was a clash between rows), and has no $m($
    outside that row and the $m$ row of Core terms' small table of letters (read r199), which repeats it."""
    ((first, second),) = re.findall(
        r"^\| \$m\$ \| a query's position \| a key's position in chapter \d+; ALiBi's \*slope\*, \$m\$ in chapter"
        r" (\d+) and \$m_h\$ in chapter (\d+); ",
        letters("$m$"),
    )
    assert "a head's fixed positive number:" in row("slope (ALiBi)")  # "ALiBi's *slope*": this page's row
    # the slope's letter only where the two tables of letters map it
    # fix pass 230: the Letters table alone maps the letters (Core terms' small table removed)
    # fix pass 272 (read r269a #2): also in the Letters section's main-line table, the slope's row
    assert page().count("m_h") == 2 and "m_h" in letters("$m$")
    assert (
        "| ALiBi's fixed number for each head | its *slope*, with no letter | $m$ in chapter 3 and $m_h$ in" in page()
    )
    assert letters("$m$").endswith(
        "; YaRN's *attention factor* $m(s)$ in chapter 10, Reading model code and the claims page |"
    )
    assert "$m_h$" in chapter("06_alibi") and "$m_h$" not in chapter("03_relative")
    c10 = chapter("10_rope_today")
    for text in (
        c10,
        *((ROOT / "book" / f"{name}.md").read_text(encoding="utf-8") for name in ("reading_code", "claims")),
    ):
        assert "$m(s)" in text and "0.1" in text
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    assert raw.count("m(s)") == 1 and "m(s)" in letters("$m$")
    slope = {"03_relative": "with a slope $m$ per head", "06_alibi": "with a fixed slope $m_h$ for each head"}
    assert [int(first), int(second)] == [int(name[:2]) for name in slope]
    for name, words in slope.items():
        assert words in chapter(name), name


def test_letters_m_row_gives_chapter_1s_largest_power_of_two():
    """The Letters table's $m$ row: "the largest power of two that divides a shift $k$ in chapter 1" (fix pass 276,
    read r273b #4, omission: the row listed chapters 9, 3, 6 and 10 but not chapter 1's $m$), against chapter 1's
    markdown, "Let $m$ be the largest power of two that divides $k$", where $k$ is a shift ("for a shift of $k = 5$";
    the $k$ row's "a shift of positions in chapters 1 and 2"). The meaning is chapter 1's use of it: in the 64-row
    binary code, positions $0, m, 2m, 3m$ have $\\mathrm{PE}(0) + \\mathrm{PE}(3m) = \\mathrm{PE}(m) +
    \\mathrm{PE}(2m)$ for every shift $k$ from 1 to 15, and $m$ is the largest power of two dividing $k$."""
    (power_chapter,) = re.findall(
        r"; the largest power of two that divides a shift \$k\$ in chapter (\d+); YaRN's", letters("$m$")
    )
    stem = "01_why_position"
    assert int(power_chapter) == int(stem[:2])
    c1 = chapter(stem)
    assert "Let $m$ be the largest power of two that divides $k$." in c1
    assert "for a shift of $k = 5$" in c1 and "a shift of positions in chapters 1 and 2" in letters("$k$")
    # chapter 1's sense of m, in the 64-row binary code: PE(0) + PE(3m) = PE(m) + PE(2m), m = k & -k
    bits = torch.tensor([[(p >> b) & 1 for b in range(6)] for p in range(64)], dtype=torch.float64)
    for k in range(1, 16):
        m = k & -k
        assert k % m == 0 and k % (2 * m) != 0 and m & (m - 1) == 0, (k, m)
        assert torch.equal(bits[0] + bits[3 * m], bits[m] + bits[2 * m]), k


def test_p_rope_row_cites_barbero_et_al_2025():
    """The Encodings row *p-RoPE, proportional RoPE* names its source as the Abacus row does, "(McLeish et al. 2024)"
    at the end of its meaning: "(Barbero et al. 2025)" (fix pass 276, read r273b #5, omission: the row gave no
    source). The bib entry ``barbero2025round`` is "Round and Round We Go! What makes Rotary Positional Encodings
    useful?", first author Barbero, 2025, whose p-RoPE drops a share of the lowest frequencies, as the row says
    ("only the fastest share of the pairs turn ... the others get frequency zero"); each chapter the row links cites
    that entry. :func:`test_each_rows_citations_are_its_own_bib_entries` checks the author and year too."""
    meaning = cells("p-RoPE, proportional RoPE")[2]
    assert meaning.endswith("and the others get frequency zero (Barbero et al. 2025)"), meaning
    assert cells("Abacus embeddings")[2].endswith("(McLeish et al. 2024)")  # the same markup
    assert CITED_KEYS["p-RoPE, proportional RoPE"] == {"barbero2025round"}
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    entry = bib[bib.index("{barbero2025round,") : bib.index("\n}", bib.index("{barbero2025round,"))]
    assert "title         = {Round and Round We Go! What makes Rotary Positional Encodings useful?}" in entry
    assert "author        = {Barbero, Federico and" in entry and "year          = {2025}" in entry
    assert "p-RoPE drops a fraction of the lowest frequencies" in entry
    linked = re.findall(r"<\.\./notebooks/(\w+)>`", row("p-RoPE, proportional RoPE"))
    assert linked == ["05_decay", "08_extrapolation", "10_rope_today"], linked
    for name in linked:
        assert '"cite:barbero2025round"' in chapter(name), name


# ---- temperature and query scales ------------------------------------------------------------------------------


def test_temperature_divides_the_logits_and_below_one_sharpens():
    """The row "a number $t$ that divides the logits: below 1 it sharpens attention, above 1 it flattens it" and its
    cell "multiplier of $q \\cdot k$", "$1/t$": transformers' `TemperatureLogitsWarper` divides by $t$, and the
    entropy of the softmax falls below $t = 1$ and rises above it, on random logits."""
    from transformers.generation.logits_process import TemperatureLogitsWarper

    ((below, above),) = re.findall(
        r"a number \$t\$ that divides the logits: below 1 it (\w+) attention, above 1 it (\w+) it",
        row("temperature (attention temperature)"),
    )
    (per_logit,) = re.findall(r"^\$([^$]+)\$$", cells("temperature (attention temperature)")[3])
    assert "scores / self.temperature" in inspect.getsource(TemperatureLogitsWarper.__call__)
    change = {"sharpens": -1.0, "flattens": 1.0}  # the sign of the entropy's change

    def entropy(z: torch.Tensor, t: float) -> float:
        logits = TemperatureLogitsWarper(t)(None, z.clone())
        assert torch.allclose(logits, z * evaluate(per_logit, t=t), rtol=1e-12, atol=0)
        return float(attention_entropy(logits).sum())

    g = torch.Generator().manual_seed(0)
    for _ in range(100):
        z = torch.randn(1, int(torch.randint(2, 100, (1,), generator=g)), generator=g, dtype=torch.float64) * 3
        plain = entropy(z, 1.0)
        for t, word in ((0.5, below), (0.9, below), (1.1, above), (2.0, above)):
            assert math.copysign(1.0, entropy(z, t) - plain) == change[word], (t, word)


def test_attention_factor_multiplies_the_logits_by_its_square_in_a_fully_rotated_head():
    """The attention factor row's cell "multiplier of $q \\cdot k$", "its square, in a fully rotated head", its meaning
    "the number $a$ by which YaRN and LongRoPE multiply RoPE's cos and sin; in a fully rotated head, doing so
    multiplies the logits by $a^2$" (the row's power and the cell's agree, and the computation below uses it), with
    the section's lead "A larger multiplier sharpens attention" (so $a > 1$ sharpens a fully rotated head: the
    entropy check below) and the block's "In a *partial rotary* head, only the
    rotated coordinates' share of $q \\cdot k$ is multiplied by the square; the rest is unchanged, so no single number
    scales the logit" and "A configuration calls the factor `attention_factor`. Transformers' rotary modules hold it as
    `attention_scaling` and multiply cos and sin by it": a `yarn` config's `attention_factor`, when set, is the module's
    `attention_scaling`; transformers multiplies cos and sin by it; in a Llama head the logits grow by its square; in a
    GPT-NeoX head with half its pairs rotated, the rotated part's term grows by its square and the pass-through part's
    term not at all, so the whole logit does not."""
    from transformers.models.gpt_neox.modeling_gpt_neox import (
        GPTNeoXRotaryEmbedding,
        apply_rotary_pos_emb as neox_rotate,
    )
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb as llama_rotate

    cell = cells("attention factor")[3]
    # the meaning says the verb and the power, "multiplies the logits by $a^2$", with the cell's scope
    (row_power,) = re.findall(
        r"\| the number \$a\$ by which YaRN and LongRoPE multiply RoPE's cos and sin; in a fully rotated head with no"
        r" \*QK-norm\* after the rotation, doing so multiplies the logits by \$a\^(\d)\$ \|",
        row("attention factor"),
    )
    # fix pass 280 (reads r276a #4 and r276b #2): the cell opens on a value, "about 1.46 for YaRN at $s = 8$" (checked
    # in test_scales_tables_worked_row_yarns_factor_at_8), then the scope
    # fix pass 287 (read r282a #5): the cell holds no scope; the meaning cell's is read just above
    power = {"$a^2$": 2, "$a$": 1}[
        re.sub(r", about [\d.]+ for YaRN at \$s = \d+\$,", "", cell.strip()).removesuffix(
            " as query and key both carry $a$"
        )
    ]
    assert int(row_power) == power, (row_power, power)  # the meaning and the multiplier column agree
    assert cell.endswith(", as query and key both carry $a$")  # the square: q and k are each multiplied by a
    assert (
        "In a *partial rotary* head, only the rotated coordinates' share of $q \\cdot k$ is multiplied by the square;"
        " the rest is unchanged, so no single number scales the logit." in page()
    )
    assert (
        "A configuration calls the factor `attention_factor`. Transformers' rotary modules hold it as"
        " `attention_scaling` and multiply cos and sin by it." in page()
    )
    assert "`attention_factor`" not in row("attention factor")  # the row holds the definition, the block the names
    assert re.findall(SCALES_OPENING, page())[0][:2] == ("larger", "sharpens")  # the lead: a^2 > 1 sharpens
    # the section's opening (read r199): "In a fully rotated head, YaRN's *attention factor* multiplies both $q$ and
    # $k$, so $q \cdot k$ is multiplied by its square": the power computed below in a Llama head, where the rotated
    # q and k are each the factor times their rotation without it, and not in the partial rotary GPT-NeoX head
    # fix pass 273 (reads r270a #5 and r270b #3): the opening no longer says the power; the row's, computed below
    assert int(row_power) == power == 2, (row_power, power)
    for cls in (LlamaRotaryEmbedding, GPTNeoXRotaryEmbedding):
        assert "cos = emb.cos() * self.attention_scaling" in inspect.getsource(cls.forward), cls
    d, n = 16, 6
    named = {"rope_type": "yarn", "rope_theta": 1e4, "factor": 8.0, "original_max_position_embeddings": 64}
    named["attention_factor"] = 1.37  # the config's field becomes the module's `attention_scaling`
    rope = LlamaRotaryEmbedding(
        transformers.LlamaConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=named)
    )
    assert abs(rope.attention_scaling - 1.37) < 1e-12, rope.attention_scaling
    yarn = {"rope_type": "yarn", "rope_theta": 10_000.0, "factor": 8.0, "original_max_position_embeddings": 64}
    llama = LlamaRotaryEmbedding(
        transformers.LlamaConfig(hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=yarn)
    )
    neox = GPTNeoXRotaryEmbedding(
        transformers.GPTNeoXConfig(
            hidden_size=2 * d, num_attention_heads=2, rope_parameters={**yarn, "partial_rotary_factor": 0.5}
        )
    )
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 1, n, d, generator=g, dtype=torch.float64)
    for rope, rotate in ((llama, llama_rotate), (neox, neox_rotate)):
        factor = rope.attention_scaling
        assert factor > 1, factor
        cos, sin = (t.double() for t in rope(torch.zeros(1, n, 2 * d), torch.arange(n)[None]))
        qs, ks = rotate(q, k, cos, sin)
        q1, k1 = rotate(q, k, cos / factor, sin / factor)  # the same rotation without the factor
        logits, plain = qs @ ks.transpose(-1, -2), q1 @ k1.transpose(-1, -2)
        if rope is llama:
            assert torch.allclose(qs, q1 * factor, rtol=1e-12, atol=1e-12)  # "multiplies both $q$ and $k$"
            assert torch.allclose(ks, k1 * factor, rtol=1e-12, atol=1e-12)
            assert torch.allclose(logits, plain * factor**power, rtol=1e-9, atol=0)
            p, p1 = torch.softmax(logits, -1), torch.softmax(plain, -1)
            assert ((p * p.log()).sum(-1) > (p1 * p1.log()).sum(-1)).all()  # lower entropy: sharper
        else:
            r = cos.shape[-1]  # the rotated width; the rest passes through
            passed = q[..., r:] @ k[..., r:].transpose(-1, -2)
            assert torch.allclose(logits - passed, (plain - passed) * factor**power, rtol=1e-9, atol=1e-12)
            assert not torch.allclose(logits, plain * factor**2, rtol=1e-3, atol=0)
    # fix pass 264 (reads r263 #3 and r263b #3) and fix pass 265 (reads r264 #1 and r264b #1, unclear: the main line
    # named Llama 3.1's head, whose `llama3` has no attention factor): the main line's "In a fully rotated head with no
    # *QK-norm* after the rotation, $q \cdot k$ is thus multiplied by the factor's square" (fix pass 266: "In a fully
    # rotated head with no *QK-norm* after the rotation, YaRN's *attention factor* $a$ multiplies $q \cdot k$ by its
    # square"), and the block's "Llama
    # 3.1's head is fully rotated and has no *QK-norm*, but Llama 3.1 uses `llama3`, which has no attention factor. In
    # a fully rotated head, a *QK-norm* after the rotation divides the factor out again, up to the norm's small
    # epsilon": Llama 3.1's config (posenc's copy) rotates the whole head with `llama3`, whose attention factor is 1,
    # transformers' Llama attention has no QK-norm, and in Llama 3.1's head shape with YaRN at its `factor` the logits
    # grow by the factor's square; Llama 4's L2 norm and Qwen3's RMS norm, applied after the rotation, give back the
    # logits without the factor, to within their epsilon
    from transformers.models.llama.modeling_llama import LlamaAttention
    from transformers.models.llama4.modeling_llama4 import Llama4TextL2Norm
    from transformers.models.qwen3.modeling_qwen3 import Qwen3RMSNorm

    lead = " ".join(page()[page().index("### Temperature and query scales") :].split("| English |")[0].split())
    # fix pass 267 (read r266b #1): "YaRN's *attention factor* $a$ acts through its square", the conditions the row's
    # fix pass 273 (reads r270a #5 and r270b #3, unclear): that sentence left the main line; the row says the square
    # with both conditions, "in a fully rotated head with no *QK-norm* after the rotation"
    # fix pass 274 (reads r271a #6 and r271b #5): named once, "does so only under the conditions its row gives", with
    # no square; the row gives the square and both conditions, each checked below
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: caveats before the idea): the opening no longer names the
    # attention factor; its conditions sentence is the first bullets' of the block :data:`SCALES_CAVEATS`
    assert lead.count("attention factor") == 0
    assert "The *attention factor* multiplies the logits only under the conditions its row" in block(
        SCALES_CAVEATS_SUMMARY
    )
    assert "$a^2$" not in lead and "a^2" not in lead and "QK-norm" not in lead, lead
    assert (
        "in a fully rotated head with no *QK-norm* after the rotation, doing so multiplies the logits by $a^2$"
        in row("attention factor")
    )
    factors = block(YARN_FACTORS)
    assert "Llama 3.1 uses `llama3`, which has no attention factor." in factors
    assert (
        "In a fully rotated head, a *QK-norm* after the rotation divides the factor out again, up to the norm's small"
        " epsilon." in factors
    )
    l31 = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    assert "partial_rotary_factor" not in l31 and "partial_rotary_factor" not in l31["rope_scaling"], l31
    assert l31["rope_scaling"]["rope_type"] == "llama3", l31
    llama3_cfg = transformers.LlamaConfig(
        hidden_size=256,
        num_attention_heads=2,
        head_dim=128,
        rope_parameters=dict(l31["rope_scaling"], rope_theta=l31["rope_theta"]),
    )
    assert LlamaRotaryEmbedding(llama3_cfg).attention_scaling == 1.0  # "no attention factor"
    attention_init = inspect.getsource(LlamaAttention.__init__)
    assert "norm" not in attention_init, attention_init  # no QK-norm in Llama's attention
    d31, base31, L31, s31 = llama31_head()
    big = {"rope_type": "yarn", "rope_theta": base31, "factor": s31, "original_max_position_embeddings": L31}
    rope31 = LlamaRotaryEmbedding(
        transformers.LlamaConfig(hidden_size=2 * d31, num_attention_heads=2, head_dim=d31, rope_parameters=big)
    )
    a31 = rope31.attention_scaling
    q31, k31 = torch.randn(2, 1, 1, n, d31, generator=g, dtype=torch.float64)
    cos, sin = (t_.double() for t_ in rope31(torch.zeros(1, n, 2 * d31), torch.arange(n)[None]))
    qs, ks = llama_rotate(q31, k31, cos, sin)
    q1, k1 = llama_rotate(q31, k31, cos / a31, sin / a31)
    assert torch.allclose(qs @ ks.transpose(-1, -2), (q1 @ k1.transpose(-1, -2)) * a31**2, rtol=1e-9, atol=0)
    for norm in (Llama4TextL2Norm(eps=1e-6), Qwen3RMSNorm(d31, eps=1e-6).double()):
        normed = norm(qs.float()).double() @ norm(ks.float()).double().transpose(-1, -2)
        without = norm(q1.float()).double() @ norm(k1.float()).double().transpose(-1, -2)
        assert torch.allclose(normed, without, rtol=1e-4, atol=1e-4), type(norm)  # the factor divided out
        assert not torch.allclose(normed, without * a31**2, rtol=1e-2, atol=0), type(norm)


def test_irope_three_rope_layers_in_four_and_a_global_nope_layer():
    """The page: "three layers in four use RoPE with chunked attention, the fourth is a global NoPE layer":
    transformers' Llama4TextConfig defaults, read as Llama4TextAttention reads them."""
    from transformers.models.llama4 import modeling_llama4

    ((uses, out_of, last),) = re.findall(
        r"(\w+) layers in (\w+) use RoPE with chunked attention, the (\w+) is a global NoPE layer", row("iRoPE")
    )
    words = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "first": 1, "second": 2, "third": 3, "fourth": 4}
    assert "self.use_rope = config.no_rope_layers[layer_idx]" in inspect.getsource(
        modeling_llama4.Llama4TextAttention.__init__
    )
    cfg = transformers.Llama4TextConfig(num_hidden_layers=48)
    rope = [bool(flag) for flag in cfg.no_rope_layers]  # Llama4TextAttention.use_rope, layer by layer
    assert sum(rope) * words[out_of] == words[uses] * len(rope), rope
    assert [i for i, r in enumerate(rope) if not r] == list(range(words[last] - 1, 48, words[out_of])), rope
    assert cfg.layer_types == ["chunked_attention" if r else "full_attention" for r in rope], cfg.layer_types


def test_query_scales_layer_scope():
    """The tau row: "a factor of 1 or more on the queries of Llama 4's NoPE layers" and "Ministral 3 and Mistral 4 put a
    factor of the same kind, set by `llama_4_scaling_beta`, on the queries of every layer". Run in tiny transformers
    models: switching Llama 4's temperature tuning off changes the output of its NoPE layers alone; Ministral 3 and
    Mistral 4 call their scale once per layer, with `llama_4_scaling_beta`."""
    from transformers.models.llama4 import modeling_llama4 as llama4
    from transformers.models.ministral3 import modeling_ministral3 as ministral3
    from transformers.models.mistral4 import modeling_mistral4 as mistral4

    text = row("Llama 4's query temperature $\\tau$ (temperature tuning)")
    assert (
        "| a factor of 1 or more on the queries of Llama 4's NoPE layers, growing in steps with the position, so it"
        " multiplies those layers' logits |" in text
    )
    assert (
        "Ministral 3 and Mistral 4 put a factor of the same kind as Llama 4's *query temperature*, set by"
        " `llama_4_scaling_beta`, on the queries of every layer." in page()
    )
    torch.manual_seed(0)
    cfg = transformers.Llama4TextConfig(
        vocab_size=32,
        hidden_size=32,
        intermediate_size=64,
        intermediate_size_mlp=64,
        num_hidden_layers=8,
        num_attention_heads=2,
        num_key_value_heads=1,
        head_dim=16,
        floor_scale=2,  # the scale steps up every 2 positions, so 12 tokens see it above 1
        attention_chunk_size=4,
    )
    cfg._attn_implementation = "eager"
    n = 12
    x = torch.randn(1, n, 32)
    freqs = llama4.Llama4TextRotaryEmbedding(cfg)(x, torch.arange(n)[None])
    changed = []
    for layer in range(cfg.num_hidden_layers):
        attention = llama4.Llama4TextAttention(cfg, layer).eval()
        with torch.no_grad():
            tuned = attention(x, freqs, None)[0]
            attention.attn_temperature_tuning = False
            changed.append(not torch.allclose(tuned, attention(x, freqs, None)[0]))
    assert changed == [not flag for flag in cfg.no_rope_layers], changed  # the NoPE layers, and only they
    small = dict(vocab_size=32, hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=2)
    models = (
        (ministral3, transformers.Ministral3Config(**small, num_key_value_heads=1, head_dim=16), "Ministral3Model"),
        (
            mistral4,
            transformers.Mistral4Config(
                **small,
                num_key_value_heads=2,
                moe_intermediate_size=16,
                n_routed_experts=4,
                num_experts_per_tok=2,
                kv_lora_rank=16,
                q_lora_rank=16,
                qk_rope_head_dim=8,
                qk_nope_head_dim=8,
                v_head_dim=8,
                pad_token_id=0,
            ),
            "Mistral4Model",
        ),
    )
    for module, config, model_name in models:
        assert config.rope_parameters["llama_4_scaling_beta"] > 0, config.rope_parameters
        assert "query_states = query_states * get_llama_4_attn_scale(" in inspect.getsource(module)
        calls, original = [], module.get_llama_4_attn_scale

        def counted(*args, original=original, calls=calls, **kwargs):
            calls.append(args[1])  # beta
            return original(*args, **kwargs)

        module.get_llama_4_attn_scale = counted
        try:
            with torch.no_grad():
                getattr(transformers, model_name)(config).eval()(input_ids=torch.arange(1, 10)[None])
        finally:
            module.get_llama_4_attn_scale = original
        assert calls == [config.rope_parameters["llama_4_scaling_beta"]] * config.num_hidden_layers, (model_name, calls)


@pytest.mark.parametrize("head_dim", [16, 64, 128])
@pytest.mark.parametrize("base", [1e4, 5e5])
def test_a_fixed_rule_divides_the_slowest_pair_by_s_when_it_turns_fewer_times_than_the_lower_bound(head_dim, base):
    """The collapsed block "When a rule's effective factor is s or the stretch": "PI and NTK-aware scaling divide the
    slowest pair by $s$ at every length. `llama3` and YaRN do so only when that pair turns fewer times in $L$ than their
    lower bound, `low_freq_factor` or `beta_slow`. Llama 3.1's bound and YaRN's default are both 1, so there the slowest
    pair must turn less than once in $L$. Dynamic YaRN's effective factor is the stretch under the same condition on
    `beta_slow`." Swept over head widths, bases, trained lengths, factors and lower bounds (0.5, 1, 2): the
    slowest pair is divided by s exactly when it turns fewer times than the lower bound. With a bound of 0.5, a pair
    that turns less than once but more than half a time is ramped, so "less than once" alone is not enough."""
    text = page()
    assert (
        "<details><summary>When a rule's effective factor is s or the stretch</summary> PI and NTK-aware scaling"
        # fix pass 283 (reads r279a #1 and r279b #3, unclear: "fewer" against the betas row's "at most"; transformers'
        # llama3 divides a pair at exactly low_freq_factor turns by s, its smooth weight being 0 there)
        " divide the slowest pair by $s$ at every length. `llama3` and YaRN do so only when that pair turns at most as"
        " many times in $L$ as their lower bound, `low_freq_factor` or `beta_slow`. Llama 3.1's bound and YaRN's"
        " default are both 1, so there the slowest pair must turn at most once in $L$." in text
    )
    # dynamic YaRN is YaRN with the factor set to the stretch, so the same condition holds
    assert "Dynamic YaRN's effective factor is the stretch under the same condition on `beta_slow`." in text
    assert "| PI whose effective factor is the current input's *stretch* |" in row("dynamic PI")
    from transformers.modeling_rope_utils import _compute_yarn_parameters

    assert 'get("beta_slow") or 1' in inspect.getsource(_compute_yarn_parameters)  # YaRN's default lower bound
    assert MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]["low_freq_factor"] == 1  # Llama 3.1's (a prose sync)
    plain = posenc.rope_inv_freq(head_dim, base).double()
    between = 0
    for trained in (64, 4096, 32768, 65536, 2_000_000):
        turns = trained * plain[-1].item() / (2 * math.pi)
        for s in (2.0, 8.0, 32.0):
            for lower in (0.5, 1.0, 2.0):
                common = dict(factor=s, original_max_position_embeddings=trained)
                rules = {
                    "linear": dict(factor=s),
                    "ntk-aware": None,  # the base times s^(d/(d-2))
                    "llama3": dict(common, low_freq_factor=lower, high_freq_factor=4.0),
                    "yarn": dict(common, beta_fast=32.0, beta_slow=lower),
                }
                for rope_type, options in rules.items():
                    if options is None:
                        scaled = posenc.rope_inv_freq(head_dim, base * s ** (head_dim / (head_dim - 2))).double()
                    else:
                        scaled = posenc.rope_scaled_inv_freq(head_dim, base, rope_type=rope_type, **options)[0].double()
                    ratio = (plain[-1] / scaled[-1]).item()
                    if rope_type in ("linear", "ntk-aware") or turns < lower:
                        assert math.isclose(ratio, s, rel_tol=1e-5), (rope_type, trained, s, lower, ratio)  # float32
                    else:
                        assert 1 <= ratio < s * (1 - 1e-3), (rope_type, trained, s, lower, ratio)
                        between += lower < 1 and turns < 1  # less than once, yet not divided by s
    assert between > 0 or (head_dim, base) != (64, 1e4), between


# ---- rotation pairs, dynamic NTK's formula and field, the stretch, truncate, the cache, and other rows --------------


def test_rotation_pair_count_in_a_whole_and_a_partial_head():
    """The row "two coordinates that RoPE turns together by one angle: a fully rotated head has $d/2$ of them": the
    number of frequencies transformers gives a Llama head (whole), one per pair, and a GPT-NeoX head (partial rotary),
    which has fewer; the *half layout*'s partner under partial rotary, $i + d_{\\text{rot}}/2$ (the Encodings block
    "In models and code"), gives its count."""
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    (whole,) = re.findall(r"a fully rotated head has \$([^$]+)\$ of them \|", row("rotation pair"))
    (partial,) = re.findall(
        r"\$d_\{\\text\{rot\}\}\$ dimensions, the \*half layout\* pairs coordinate \$i\$ with \$i \+ ([^$]+)\$,",
        models_block("## Encodings"),
    )
    for d in (16, 64, 128):
        llama = transformers.LlamaConfig(
            hidden_size=2 * d,
            num_attention_heads=2,
            head_dim=d,
            rope_parameters={"rope_type": "default", "rope_theta": 1e4},
        )
        full, _ = LlamaRotaryEmbedding.compute_default_rope_parameters(llama)
        assert full.numel() == evaluate(whole, d=d), d
        for share in (0.25, 0.5):
            neox = transformers.GPTNeoXConfig(
                hidden_size=2 * d,
                num_attention_heads=2,
                rope_parameters={"rope_type": "default", "rope_theta": 1e4, "partial_rotary_factor": share},
            )
            rotated, _ = GPTNeoXRotaryEmbedding.compute_default_rope_parameters(neox)
            assert rotated.numel() == evaluate(partial, drot=int(d * share)) != evaluate(whole, d=d), (d, share)


def test_dynamic_ntk_formula_and_the_field_transformers_reads():
    """The row "dynamic NTK", whose effective factor "grows with the input's length past $L$", and its section's block
    "In models and code": "*Dynamic NTK*'s effective factor is 1 up to $L$, then $1 + s(\\ell/L - 1)$", and the worked
    example's
    block:
    "Transformers' `dynamic` takes its $L$ from `max_position_embeddings`": the page's formula evaluated against
    transformers' `dynamic` run
    with that field set to L, over lengths below and past L and two factors."""
    assert "whose effective factor grows with the input's length past $L$ (emozilla 2023) |" in row(
        "dynamic NTK (`dynamic`)"
    )
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    text = raw[raw.index("### Terms for longer inputs") : raw.index("(glossary-scales)=")]
    ((below, formula),) = re.findall(
        r"^- \*Dynamic NTK\*'s effective factor is (\d+) up to \$L\$, then \$([^$]+)\$\.$", text, re.M
    )
    assert "transformers 5.24's `dynamic` reads $L$ from `max_position_embeddings`" in note("dynamic NTK")
    from transformers.modeling_rope_utils import _compute_dynamic_ntk_parameters

    code = inspect.getsource(_compute_dynamic_ntk_parameters).split('"""')[-1]
    assert "config.max_position_embeddings" in code and "original_max_position_embeddings" not in code
    d, base, L = 64, 10_000.0, 1024
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    for s in (2.0, 8.0):
        for ell in (L // 2, L, 3 * L // 2, 2 * L, 5 * L):
            hf = hf_inv_freq(
                d, max_position_embeddings=L, seq_len=ell, rope_type="dynamic", rope_theta=base, factor=s
            ).double()
            measured = float(theta[-1] / hf[-1])
            expected = float(below) if ell <= L else evaluate(formula, s=s, ell=ell, L=L)
            assert abs(measured - expected) < 1e-4 * expected, (s, ell, measured, expected)  # float32 frequencies


def test_dynamic_rules_put_the_stretch_in_factors_place_or_combine_the_two():
    """The block "When a rule's effective factor is s or the stretch": "Dynamic PI and dynamic YaRN put the stretch in
    the place of `factor`. Dynamic NTK instead combines `factor` with the input's length, as the block on the worked
    example's dynamic NTK shows." (fix pass 264, read r263 #1: this had been the extension factor row's "set by" cell,
    rule-by-rule exceptions in a definition table.) Chapter 8's code path, `experiment_scaling`: dynamic PI and dynamic
    YaRN take the stretch as their `factor` at every length, whatever `factor` a config would hold; dynamic NTK keeps
    the configuration's `factor` and reads the length, dividing the slowest pair by $1 + s(\\ell/L - 1)$, the formula of
    the block on the worked example's dynamic NTK."""
    text = block("When a rule's effective factor is s or the stretch")
    assert (
        "Dynamic PI and dynamic YaRN put the stretch in the place of `factor`. Dynamic NTK instead combines `factor`"
        " with the input's length, as the block on the worked example's dynamic NTK shows." in text
    )
    (formula,) = re.findall(r"\*Dynamic NTK\* sets its effective factor to \$([^$]+)\$ past \$L\$\.", block(DYN))
    config = load_results("extrapolation", check=False)["config"]
    L = config["train_length"]
    theta = posenc.rope_inv_freq(16, 10_000.0, dtype=torch.float64)
    for ell in (L // 2, L, 3 * L, 8 * L):
        stretch = max(ell / L, 1.0)
        for scaling in ("pi", "yarn"):
            rule, seq_len = experiment_scaling(config, scaling, ell)
            assert rule.factor == stretch and seq_len is None, (scaling, ell, rule)  # the stretch as `factor`
        for s in (1.0, 2.0):
            rule, seq_len = experiment_scaling(config, "dynamic", ell, factor=s)
            assert rule.factor == s and seq_len == ell, (ell, rule)  # `factor` kept, the length read beside it
            by = float(theta[-1] / rule.inv_freq(16, seq_len=seq_len)[0].double()[-1])
            expected = evaluate(formula, s=s, ell=ell, L=L) if ell > L else 1.0
            assert abs(by - expected) < 1e-4 * expected, (s, ell, by, expected)


def test_stretch_is_dynamic_ntks_effective_scale_with_factor_1():
    """The row "stretch": "$\\max(\\ell/L, 1)$", and the block "When a rule's effective factor is s or the stretch":
    "Chapter 8's dynamic NTK sets `factor` to 1, so its effective factor is the *stretch*", not on the main line:
    the saved run's factor; transformers' `dynamic` and posenc's, with factor 1, divide the slowest pair by the page's
    formula, below and past L, and at the worked example's 2L by 2, not its 9. That block alone gives chapter 8's
    second dynamic NTK run, "dynamic NTK, factor 2": "Its run "dynamic NTK, factor 2" has the effective factor $1 +
    2(\\ell/L - 1)$ past $L$, 3 at $2L$": the saved run's factor 2, chapter 8's label for it, and the code path
    chapter 8 runs it by; the worked example's dynamic NTK block names neither chapter 8 run."""
    assert "Chapter 8's dynamic NTK sets `factor` to 1, so its effective factor is the *stretch*." in block(
        "When a rule's effective factor is s or the stretch"
    )
    assert "Chapter 8" not in block(DYN)  # the block derives the worked example's 9 only
    config = load_results("extrapolation", check=False)["config"]
    assert config["dynamic_factor"] == 1
    # the factor-2 run, in both places: one formula and one value at 2L, read from each
    ((f2_block, at_block),) = re.findall(
        r'Its run "dynamic NTK, factor 2" has the effective factor \$([^$]+)\$ past \$L\$, (\d+) at \$2L\$\.',
        block("When a rule's effective factor is s or the stretch"),
    )
    dyn = " ".join(block(DYN).split())
    assert "3 at $2L$" not in dyn and 'factor 2" has the effective factor' not in dyn  # the fact is kept once
    assert config["sensitivity"]["dynamic f2"] == {"scaling": "dynamic", "factor": 2.0}, config["sensitivity"]
    nb = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert '"rope+dynamic": "dynamic NTK"' in code and '"rope+dynamic f2": "dynamic NTK, factor 2"' in code
    L8, d8, b8 = config["train_length"], 16, 10_000.0  # chapter 8's L; the divisor of the slowest pair is d-free
    theta8 = posenc.rope_inv_freq(d8, b8, dtype=torch.float64)
    for ell in (L8 + L8 // 2, 2 * L8, 4 * L8, 8 * L8):
        rule, seq_len = experiment_scaling(config, "dynamic", ell, factor=config["sensitivity"]["dynamic f2"]["factor"])
        slow = float(theta8[-1] / rule.inv_freq(d8, seq_len=seq_len)[0].double()[-1])
        assert abs(slow - evaluate(f2_block, ell=ell, L=L8)) < 1e-4 * slow, (ell, slow)
        assert slow > max(ell / L8, 1), ell  # above the stretch: not chapter 8's factor-1 run
    assert int(at_block) == evaluate(f2_block, ell=2, L=1) == 3
    (formula,) = re.findall(r"the input's length over the trained length, \$([^$]+)\$:", row("stretch | 拉伸"))
    d, base, L = 64, 10_000.0, 1024
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    for ell in (L // 4, L, 3 * L // 2, 2 * L, 8 * L):
        hf = hf_inv_freq(d, max_position_embeddings=L, seq_len=ell, rope_type="dynamic", rope_theta=base, factor=1.0)
        measured = float(theta[-1] / hf.double()[-1])
        expected = evaluate(formula, ell=ell, L=L)
        assert abs(measured - expected) < 1e-4 * expected, (ell, measured, expected)
        ours, _ = posenc.rope_scaled_inv_freq(
            d, base, rope_type="dynamic", factor=1.0, original_max_position_embeddings=L, seq_len=ell
        )
        assert abs(float(theta[-1] / ours.double()[-1]) - expected) < 1e-4 * expected, ell  # chapter 8's code path
    d, base, L, s = llama31_head()  # the worked example's head: factor 1 gives the stretch 2 where factor 8 gives 9
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    for factor, by in ((1.0, 2.0), (s, 9.0)):
        ours, _ = posenc.rope_scaled_inv_freq(
            d, base, rope_type="dynamic", factor=factor, original_max_position_embeddings=L, seq_len=2 * L
        )
        assert abs(float(theta[-1] / ours.double()[-1]) - by) < 1e-4 * by, (factor, by)


def test_betas_row_transformers_keeps_pair_0():
    """The betas row: "the pairs that turn at least `beta_fast` times are kept", its definition alone; the block "In
    models and code", its betas bullet's "With `beta_fast` at least `beta_slow`, as in both, " :data:`NEW_PAIR_0`
    (fix pass 267: moved there from the row; fix pass 275, read
    r272b #1: "always" was overstated), and the next bullet's "Either way the code clamps the ramp's lower end at pair
    0, so pair 0, the fastest, is kept whenever it turns fewer than `beta_fast` times in $L$, however few" (read r182:
    "kept means turns more than `beta_fast`" failed for chapter 8's heads at the default betas 32/1,
    where no pair turns 32 times and pair 0 is kept; read r186: the row named that exception inside the definition, so
    the row says which pairs are kept, not that only they are; that they are is test_summary's sweep; read r199: a
    reader of the row alone concluded that YaRN 32/1 keeps no pair of chapter 8's heads, so the row adds pair 0 in a
    short sentence of its own, after the definition, not inside it). Transformers' `yarn` clamps the ramp's lower end
    at pair 0; over a sweep
    of widths, bases, lengths, factors, betas and both `truncate` settings, pair 0's frequency is always its own,
    also where pair 0 turns fewer than `beta_fast` times, and where it turns fewer than `beta_slow` times; and the
    sweep holds cases of both kinds, chapter 8's head at 32/1 among them. YaRN's paper would ramp such a pair: its
    blend is linear in the turns and is 1 only above `beta_fast` turns. Fix pass 275 (read r272b #1): both conditions
    are needed, and pair 0 below `beta_fast` turns is kept without them: with the betas swapped, Llama 3.1's head loses
    pair 0, and with them in order, a head whose every pair turns more than `beta_fast` times loses it too."""
    import transformers.modeling_rope_utils as rope_utils

    # fix pass 281 (reads r277a #2 and r277b #2): "at least", as in the code (floor of the correction dimension)
    assert "*turns in $L$*: the pairs that turn at least `beta_fast` times are kept," in row("betas")
    # fix pass 232 (read r231 #2: the row read as a rule the code follows but for pair 0; the block's toy head, with
    # `truncate` off, divides no pair): the sentence says the code departs from the rule, and points to the block
    # fix pass 258b (read r258 #2: five blocks follow the table): the block named
    # fix pass 267 (reads r266 #6 and r266b #3, unclear: an implementation caveat inside a main-line definition): the
    # row keeps its definition alone; the sentence on pair 0 joined the block's betas bullet, which points to the
    # next bullet, the one on `truncate` and the clamp at pair 0
    (definition,) = cells("betas")[2].split(". ")
    # fix pass 275 (read r272b #1, overstated: "always keeps pair 0" fails with beta_fast below beta_slow): the two
    # conditions under which the code keeps it, each shown necessary by the sweep below
    pair_0_said = (
        # fix pass 285 (read r280a #3, unclear: about 20 lines of a code edge case): the bullet says `truncate` first,
        # then the essential fact, :data:`NEW_PAIR_0`, in four lines; the clamp's reason, :data:`CLAMP_WHY`, the toy
        # head and the exact bounds sit in the nested block :data:`YARN_EDGES` (checked below and in
        # test_betas_row_truncate_moves_the_ramps_ends_outward)
        "- YaRN's *betas* are 32 and 1 by default, 2 and 1 in chapter 8's main runs. Its `truncate` in transformers,"
        " true by default, moves the ramp's two ends outward to whole pairs; gpt-oss sets it to false. With"
        # fix pass 279 (read r275a #1, unclear: the old condition, a sufficient one, suggested pair 0 is divided in
        # other heads): the exact condition, L >= 2 pi b^2 beta_fast with truncate (swept below), met only by a tiny
        # base
        " `beta_fast` at least `beta_slow`, as in both, " + NEW_PAIR_0 + " - Llama 3.1 sets"
    )
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    terms = raw[raw.index("\n### Terms for longer inputs\n") :]
    terms = terms[: terms.index("\n#", 5)]
    # the last block of the section: fix pass 285 (read r280a #3), the nested YARN_EDGES, at the end of "In models and
    # code", whose closing tag follows the nested one's
    assert terms.rindex("<details>") == terms.index(f"<details><summary>{YARN_EDGES}</summary>")
    assert terms.index("<details><summary>In models and code</summary>") < terms.rindex("<details>")
    assert terms.rstrip().endswith("</details>\n\n</details>\n\n(glossary-scales)="), terms[-60:]
    # fix pass 281 (read r277b #6): why the code divides every pair there, the clamp (checked in
    # test_yarn_divides_every_pair_where_its_kept_end_passes_the_clamp)
    assert block(YARN_EDGES).startswith(CLAMP_WHY)
    assert "pair 0" not in definition and "Transformers" not in definition, cells("betas")[2]
    assert pair_0_said in " ".join(models_block("### Terms for longer inputs").split())
    assert "`truncate` divides every pair but pair 0 by 4, and without it no pair is divided" in " ".join(
        models_block("### Terms for longer inputs").split()
    )
    # fix pass 275 (read r272b #1, overstated: pair 0 kept "however few times it turns" read as always): kept below
    # beta_fast turns, whatever the betas' order (the swapped sweep below)
    assert (
        "Either way the code clamps the ramp's lower end at pair 0, so pair 0, the fastest, is kept whenever it turns"
        " fewer than `beta_fast` times in $L$, however few."
        in " ".join(models_block("### Terms for longer inputs").split())
    )
    assert "return max(low, 0), min(high, dim - 1)" in inspect.getsource(rope_utils._compute_yarn_parameters)
    run = load_results("extrapolation", check=False)["config"]
    head = run["model"]["d_model"] // run["model"]["n_heads"]  # chapter 8's head width

    below_fast = below_slow = swept = slowed = 0
    ch8_default = False
    for width, base, length, factor, (fast, slow), trunc in [
        (w, b, n, f, betas, tr)
        for w in (head, 64, 128)
        for b in (1e4, 5e5, 1e6)
        for n in (run["train_length"], 4096, 32768)
        for f in (2.0, 8.0, 40.0)
        for betas in ((32.0, 1.0), (2.0, 1.0), (16.0, 2.0), (8.0, 0.5), (32.0, 16.0))
        for tr in (True, False)
    ]:
        own = posenc.rope_inv_freq(width, base, dtype=torch.float64)
        yarn = own / pair_divisors(width, base, length, fast, slow, trunc, factor)  # transformers' yarn frequencies
        assert abs(float(yarn[0] / own[0]) - 1) < 1e-6, (width, base, length, factor, fast, slow, trunc)
        # fix pass 275 (read r272b #1): every case here meets the bullet's two conditions
        assert fast >= slow and float(length * own[-1] / (2 * math.pi)) <= fast, (width, base, length, fast)
        slowed += float(yarn[-1] / own[-1]) < 1 - 1e-3  # a real scaling: some pair is slowed
        turns0 = float(length * own[0] / (2 * math.pi))
        swept += 1
        below_fast += turns0 <= fast
        below_slow += turns0 < slow
        ch8_default |= (width, length, fast, slow) == (head, run["train_length"], 32.0, 1.0) and turns0 < fast
    assert swept == 810 and below_fast > 50 and below_slow > 10 and ch8_default, (swept, below_fast, below_slow)
    assert slowed > 700, slowed

    # fix pass 275 (read r272b #1, overstated): each condition is needed. Llama 3.1's head (width 128, base 5e5, L 8192,
    # factor 8), whose pair 0 turns more than either beta: with the betas in order pair 0 is kept; swapped, the ramp
    # runs backwards, pair 0 is divided by the factor and the slowest pair is kept (pair_divisors, defined above)
    llama = posenc.rope_inv_freq(128, 5e5, dtype=torch.float64)
    assert float(8192 * llama[0] / (2 * math.pi)) > 32 and float(8192 * llama[-1] / (2 * math.pi)) < 1
    for trunc in (True, False):
        for fast, slow in ((32.0, 1.0), (2.0, 1.0)):
            assert abs(float(pair_divisors(128, 5e5, 8192, fast, slow, trunc)[0]) - 1) < 1e-6, (fast, slow, trunc)
        for fast, slow in ((1.0, 32.0), (0.5, 64.0)):
            divided = pair_divisors(128, 5e5, 8192, fast, slow, trunc)
            assert abs(float(divided[0]) - 8) < 1e-5 and abs(float(divided[-1]) - 1) < 1e-6, (fast, slow, trunc)
    # the betas in order, 32 and 1, but a head whose every pair turns more than 32 times in L (width 16, base 2, L
    # 8192): the correction range's kept end lies past its divided end, clamped at dim - 1, so the ramp runs backwards
    # and every pair, pair 0 included, is divided by the factor
    tiny = posenc.rope_inv_freq(16, 2.0, dtype=torch.float64)
    assert float(8192 * tiny[-1] / (2 * math.pi)) > 32
    for trunc in (True, False):
        divided = pair_divisors(16, 2.0, 8192, 32.0, 1.0, trunc)
        assert torch.allclose(divided, torch.full_like(divided, 8.0), rtol=1e-5), (trunc, divided)
    # fix pass 279 (read r275a #1, unclear: the old condition, the slowest pair turning at most beta_fast times, is
    # sufficient, not necessary): with truncate, pair 0 is divided exactly when L >= 2 pi b^2 beta_fast (the kept end,
    # floor(cd(beta_fast)), reaches the head's width, past the divided end's clamp at dim - 1), and then every pair is
    # divided by the factor; below it pair 0 is kept. Swept over widths, small bases, lengths around the threshold and
    # betas in order; and no real model's base comes near it
    cases = divided_cases = 0
    for width in (8, 16, 64, 128):
        for base_ in (2.0, 3.0, 10.0):
            for fast, slow in ((32.0, 1.0), (2.0, 1.0), (16.0, 2.0)):
                threshold = 2 * math.pi * base_**2 * fast
                for length in sorted({int(threshold * k) for k in (0.3, 0.9, 0.999, 1.001, 1.1, 3.0)} - {0}):
                    div = pair_divisors(width, base_, length, fast, slow, True)
                    divided_0 = abs(float(div[0]) - 1) > 1e-6
                    assert divided_0 == (length >= threshold), (width, base_, length, fast, float(div[0]))
                    if divided_0:
                        assert torch.allclose(div, torch.full_like(div, 8.0), rtol=1e-5), (width, base_, length)
                    cases += 1
                    divided_cases += divided_0
    assert cases > 200 and 0 < divided_cases < cases, (cases, divided_cases)
    # "far below real models'": every model of posenc's copies has a base of 10 000 or more, whose threshold, even at
    # beta_fast 1, is past half a billion tokens
    smallest = min(float(cfg["rope_theta"]) for cfg in MODEL_ROPE_CONFIGS.values() if cfg.get("rope_theta"))
    assert smallest >= 1e4 and 2 * math.pi * smallest**2 > 5e8, smallest
    # "kept whenever it turns fewer than `beta_fast` times, however few": the betas swapped too, over heads whose
    # pair 0 turns fewer times than beta_fast; the kept end then falls below pair 0 and is clamped there
    few = 0
    for width, base, length, (fast, slow), trunc in [
        (w, b, n, betas, tr)
        for w in (head, 16, 128)
        for b in (1e4, 5e5)
        for n in (run["train_length"], 8, 64)
        for betas in ((32.0, 1.0), (32.0, 2.0), (1.0, 32.0), (16.0, 64.0), (64.0, 0.5))
        for tr in (True, False)
    ]:
        if length / (2 * math.pi) < fast:  # pair 0 turns L / (2 pi) times in L
            few += 1
            assert abs(float(pair_divisors(width, base, length, fast, slow, trunc)[0]) - 1) < 1e-6, (
                width,
                base,
                length,
                fast,
                slow,
                trunc,
            )
    assert few > 50, few


def test_betas_row_truncate_moves_the_ramps_ends_outward():
    """The block "In models and code" of "Terms for longer inputs": "YaRN's `truncate` in transformers, true by
    default, moves the ramp's two ends outward to whole pairs; gpt-oss sets it to false": transformers' source (its
    default, floor and ceil, its docstring's "Only used with 'yarn'", and `llama3`, which never reads it), its `yarn`
    run both ways, whose ramp with truncation starts no later and ends no earlier, at whole pairs,
    and GptOssConfig's default. The block's next sentence, "Where pair 0 turns at least `beta_slow` times in $L$, it
    changes how the ramped pairs blend, not which pairs are kept or divided by $s$", and the betas row read as "exactly
    these pairs" (a reader read it so; r177): over a sweep of heads, lengths and betas with pair 0 at or above
    `beta_slow` turns, both settings keep exactly the pairs that turn more than `beta_fast` times, and pair 0, and
    divide by $s$ exactly those that turn fewer than `beta_slow` times, while some ramped pair's blend differs.
    The same block: "YaRN's *betas* are 32 and 1 by default, 2 and 1 in chapter 8":
    transformers' defaults and the saved run's configuration; the betas row keeps its definition, then one short
    sentence on pair 0 (read r199)."""
    from transformers.modeling_rope_utils import _compute_yarn_parameters

    block = models_block("### Terms for longer inputs")
    assert (
        # fix pass 285 (read r280a #3): the betas bullet's second sentence
        " Its `truncate` in transformers, true by default, moves the ramp's two ends outward to whole pairs;"
        " gpt-oss sets it to false." in " ".join(block.split())
    )
    import transformers.modeling_rope_utils as rope_utils

    assert "truncate" not in inspect.getsource(rope_utils._compute_llama3_parameters)  # YaRN's only
    assert "truncate (`bool`, *optional*): Only used with 'yarn'." in " ".join(inspect.getsource(rope_utils).split())
    # "Either way the code clamps the ramp's lower end at pair 0, so pair 0, the fastest, is kept whenever it turns
    # fewer than `beta_fast` times in $L$, however few. With the default betas 32/1, which chapter 8 also runs, its
    # heads have no pair that turns 32 times, yet pair 0 is kept" (the hedge the betas row no longer carries; chapter
    # 8's main runs use 2/1, its "yarn b32" arm 32/1, so the bullet comes right after the betas bullet that says so):
    # transformers' clamp, and its yarn over chapter 8's head and a sweep, both truncate settings
    ((what_if_fast, what_if_slow, what_if_turns),) = re.findall(
        # fix pass 267 (reads r266 #6 and r266b #3): the betas bullet ends with the row's old sentence on pair 0
        # fix pass 275 (read r272b #1, overstated: not "always"): that sentence with its two conditions
        # fix pass 285 (read r280a #3): the bullet keeps `truncate` and the essential fact; the rest, words kept but
        # "it" named `truncate`, moved to the nested block YARN_EDGES at the block's end, after CLAMP_WHY
        r"- YaRN's \*betas\* are \d+ and \d+ by default, \d+ and \d+ in chapter 8's main runs\. Its `truncate` in"
        r" transformers, true by default, moves the ramp's two ends outward to whole pairs; gpt-oss sets it to false\."
        # fix pass 279 (read r275a #1): the exact condition, met only by a tiny base
        r" With `beta_fast` at least `beta_slow`, as in both, " + re.escape(NEW_PAIR_0) + r" - Llama 3\.1 sets .*"
        r" <details><summary>" + re.escape(YARN_EDGES) + r"</summary> " + re.escape(CLAMP_WHY) + r" - Where pair 0"
        r" turns at least `beta_slow` times in \$L\$, `truncate` changes how the ramped pairs blend, not which"
        r" pairs are kept or divided by \$s\$\."
        # fix pass 231 (read r230 #4: the condition's reason was not said): the other case, checked below on
        # transformers' `yarn` with both settings
        # fix pass 234 (read r233 #4): the lesson first, then the toy head
        r" Where pair 0 turns fewer times, this flag can decide whether any pair is divided at all\. In a toy head of"
        r" 16 dimensions, base 10 000, \$L = 8\$, betas 32 and 2 and \$s = 4\$, `truncate` divides every pair but pair"
        r" 0 by 4, and without it no pair is divided\."
        # fix pass 273 (read r270a #2, unclear: the toy head's result came with no reason): why, in one sentence,
        # checked below on transformers' own correction range, with and without `truncate`
        r" There the ramp's end on the divided side falls below pair 0: `truncate` rounds it up to pair 0, so every"
        r" later pair is divided, while without it the ramp runs backwards and keeps every pair\."
        # fix pass 275 (read r272b #1, overstated): kept below beta_fast turns, whatever the betas' order (the
        # swapped sweep in test_betas_row_transformers_keeps_pair_0)
        r" Either way the code clamps the ramp's lower end at pair 0, so pair 0, the fastest, is kept whenever it turns"
        r" fewer than `beta_fast` times in \$L\$, however few\."
        r" With the default betas (\d+)/(\d+), which chapter 8 also runs, its heads have no pair that turns"
        r" (\d+) times, yet pair 0 is kept\."
        # fix pass 282 (read r278b #2): the bounds' exact case (test_betas_bounds_exactly_at_a_pair_282)
        r" - A pair that turns exactly `beta_fast` or `beta_slow` times is kept or divided as the \*betas\* row says"
        r" when `truncate` is off\. With `truncate` on, the rounding of a float can leave that pair in the \*ramp\*\.$",
        " ".join(block.split()),
    )
    assert what_if_turns == what_if_fast
    # the toy head: pair 0 turns 8/(2 pi), about 1.27 times in L, under beta_slow = 2; transformers' `yarn` with
    # `truncate` divides pairs 1 to 7 by s = 4 and keeps pair 0, and without it divides none (divisors 1 to float32
    # rounding)
    assert 1 < 8 / (2 * math.pi) < 2
    toy_plain = 10_000.0 ** (-torch.arange(0, 16, 2, dtype=torch.float64) / 16)
    toy = dict(rope_type="yarn", rope_theta=10_000.0, factor=4.0, original_max_position_embeddings=8)
    for truncate, divided in ((True, [1.0] + [4.0] * 7), (False, [1.0] * 8)):
        toy_freq = hf_inv_freq(16, max_position_embeddings=32, beta_fast=32.0, beta_slow=2.0, truncate=truncate, **toy)
        divisors = toy_plain / toy_freq.double()
        assert torch.allclose(divisors, torch.tensor(divided, dtype=torch.float64), rtol=1e-6), (truncate, divisors)
    # fix pass 273 (read r270a #2): "There the ramp's end on the divided side falls below pair 0: `truncate` rounds it
    # up to pair 0, so every later pair is divided, while without it the ramp runs backwards and keeps every pair":
    # transformers' own nested find_correction_dim and find_correction_range, rebuilt from
    # _compute_yarn_parameters's code objects, give the toy head's ends in pairs; beta_slow's end, the divided side,
    # is below 0 unrounded; its nested linear_ramp_factor, the share of each pair divided by s, is then 1 past pair 0
    # with `truncate` and 0 everywhere without it
    nested = {c.co_name: c for c in _compute_yarn_parameters.__code__.co_consts if inspect.iscode(c)}
    correction_dim = FunctionType(nested["find_correction_dim"], vars(rope_utils))
    correction_range = FunctionType(
        nested["find_correction_range"], vars(rope_utils), closure=(CellType(correction_dim),)
    )
    assert nested["find_correction_range"].co_freevars == ("find_correction_dim",)
    raw_fast, raw_slow = (correction_dim(beta, 16, 10_000.0, 8) for beta in (32.0, 2.0))
    assert raw_fast < raw_slow < 0, (raw_fast, raw_slow)  # the divided side's end, beta_slow's, falls below pair 0
    assert correction_range(32.0, 2.0, 16, 10_000.0, 8, True) == (0, 0)  # rounded up to pair 0 (and clamped there)
    loose = correction_range(32.0, 2.0, 16, 10_000.0, 8, False)
    assert loose == (0, raw_slow) and loose[1] < loose[0], loose  # backwards: the divided end before the kept one
    ramp_share = FunctionType(nested["linear_ramp_factor"], vars(rope_utils))
    for truncate, want in ((True, [0.0] + [1.0] * 7), (False, [0.0] * 8)):
        share = ramp_share(*correction_range(32.0, 2.0, 16, 10_000.0, 8, truncate), 8).tolist()
        assert share == want, (truncate, share)  # 1: divided by s; 0: kept
    # the row: a one-line definition, its hedge in the block; "*ramp*", in italics, is the ramp row, which the page
    # has, further down the same A-to-Z table (read r178: the row's "(see below)" went)
    assert "besides the fastest pair" not in row("betas") and "however few times" not in row("betas")
    assert "| YaRN's two bounds on the *ramp*, in *turns in $L$*: the pairs that turn at least" in row("betas")
    assert page().index(row("betas")) < page().index(row("ramp")), "the ramp row comes below the betas row"
    assert "return max(low, 0), min(high, dim - 1)" in inspect.getsource(rope_utils._compute_yarn_parameters)
    run = load_results("extrapolation", check=False)["config"]
    head = run["model"]["d_model"] // run["model"]["n_heads"]  # chapter 8's head width
    checked_ch8 = False
    for width, base_, length, factor_, beta_fast, trunc in [
        (w, b, n, f, bf, tr)
        for w in (head, 64, 128)
        for b in (1e4, 5e5)
        for n in (run["train_length"], 8192)
        for f in (2.0, 8.0)
        for bf in (2.0, 32.0)
        for tr in (True, False)
    ]:
        own = posenc.rope_inv_freq(width, base_, dtype=torch.float64)
        yarn = hf_inv_freq(
            width,
            rope_type="yarn",
            rope_theta=base_,
            factor=factor_,
            original_max_position_embeddings=length,
            beta_fast=beta_fast,
            beta_slow=1.0,
            truncate=trunc,
        ).double()
        assert abs(float(yarn[0] / own[0]) - 1) < 1e-6, (width, base_, length, factor_, beta_fast, trunc)
        if (width, base_, length, beta_fast) == (head, 1e4, run["train_length"], float(what_if_fast)):  # chapter 8's
            turns = float(own[0]) * length / (2 * math.pi)
            assert turns < beta_fast and float(yarn[-1] / own[-1]) < 1, turns  # no pair turns 32 times; yet a ramp
            checked_ch8 = True
    assert checked_ch8  # the what-if was run at chapter 8's heads, with pair 0 kept (the assert above)
    ((fast, slow, ours_fast, ours_slow),) = re.findall(
        r"- YaRN's \*betas\* are (\d+) and (\d+) by default, (\d+) and (\d+) in chapter 8's main runs\.", block
    )
    # the row says which pairs the betas keep and divide, and no more (read r182: with the default 32/1 no pair of
    # chapter 8's heads turns 32 times, yet pair 0 is kept; read r186: that exception, inside the row, hedged its
    # definition); pair 0, the clamp and the what-if are the block's "Either way the code clamps ..." sentences (read
    # r178 moved the hedge there), pinned by the regex above; test_betas_row_transformers_keeps_pair_0 sweeps the
    # claim. The row stays one short definition; read r199: then one short sentence, outside the definition, on
    # transformers' pair 0, which the block explains
    # fix pass 267 (reads r266 #6 and r266b #3, unclear: the code's departure sat in the main-line definition): the
    # row ends with its definition; the sentence on pair 0 is the block's betas bullet's
    assert row("betas").endswith(
        # fix pass 282 (read r278b #2, unclear boundary: a pair exactly at beta_slow is fully divided): "at most"
        "and those that turn at most `beta_slow` times are divided by $s$ |"
        " {doc}`7 <../notebooks/07_beyond>`,"
        " {doc}`8 <../notebooks/08_extrapolation>` |"
    )
    # fix pass 275 (read r272b #1, overstated: "however few times it turns" and "always keeps pair 0" read as
    # unconditional): each with its condition
    assert "pair 0, the fastest, is kept whenever it turns fewer than `beta_fast` times in $L$, however few." in (
        " ".join(block.split())
    )
    (definition,) = cells("betas")[2].split(". ")
    assert "pair 0" not in definition and len(definition.split()) <= 35, definition
    assert NEW_PAIR_0 in " ".join(block.split())  # fix pass 279 (read r275a #1)
    source = inspect.getsource(_compute_yarn_parameters)
    assert f'get("beta_fast") or {fast}' in source and f'get("beta_slow") or {slow}' in source
    ours = load_results("extrapolation", check=False)["config"]["yarn"]
    assert (float(ours["beta_fast"]), float(ours["beta_slow"])) == (float(ours_fast), float(ours_slow)), ours
    # the what-if's betas are the defaults, not chapter 8's own: "would", since the saved run uses the other pair
    assert (what_if_fast, what_if_slow) == (fast, slow) != (ours_fast, ours_slow), (what_if_fast, ours_fast)
    assert 'rope_parameters.get("truncate", True)' in source
    assert "low = math.floor(low)" in source and "high = math.ceil(high)" in source
    assert transformers.GptOssConfig().rope_parameters["truncate"] is False
    d, b, L, s = 64, 10_000.0, 4096, 8.0
    theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)

    def share(**extra):  # 0 where a pair is kept, 1 where it is divided by s
        yarn = hf_inv_freq(
            d, rope_type="yarn", rope_theta=b, factor=s, original_max_position_embeddings=L, **extra
        ).double()
        return (theta - yarn) / (theta - theta / s)

    default, truncated, loose = share(), share(truncate=True), share(truncate=False)
    assert torch.equal(default, truncated)  # true by default
    ramp = lambda x: ((x > 1e-4) & (x < 1 - 1e-4)).nonzero().flatten().tolist()  # noqa: E731
    first, last = ramp(truncated)[0], ramp(truncated)[-1]
    assert first <= ramp(loose)[0] and last >= ramp(loose)[-1], (ramp(truncated), ramp(loose))  # outward
    # "not which pairs are kept or divided by $s$", and the row's sets read as exact: transformers' `yarn` over a sweep
    # whose pair 0 turns at least `beta_slow` times in L (below that, as at L = 64 with betas 32/16, `yarn` divides no
    # pair: the sentence's scope); "how the ramped pairs blend": some config's ramped pair differs between the settings
    blends_differ = swept = 0
    for width, base_, length, fast, slow in [
        (w, b_, n, bf, bs)
        for w in (16, 64, 128)
        for b_ in (1e4, 5e5, 1e6)
        for n in (64, 1024, 8192, 32768)
        for bf, bs in ((32.0, 1.0), (2.0, 1.0), (4.0, 1.0), (16.0, 2.0), (8.0, 0.5))
    ]:
        own = posenc.rope_inv_freq(width, base_, dtype=torch.float64)
        turns = length * own / (2 * math.pi)
        if float(turns[0]) < slow:
            continue
        swept += 1
        by = {}
        for trunc in (True, False):
            yarn = hf_inv_freq(
                width,
                rope_type="yarn",
                rope_theta=base_,
                factor=8.0,
                original_max_position_embeddings=length,
                beta_fast=fast,
                beta_slow=slow,
                truncate=trunc,
            ).double()
            kept = torch.isclose(yarn, own, rtol=1e-6, atol=0)
            divided = torch.isclose(yarn, own / 8.0, rtol=1e-6, atol=0)
            want_kept = turns >= fast  # fix pass 281: "at least"
            want_kept[0] = True  # "transformers' `yarn` also keeps pair 0"
            assert torch.equal(kept, want_kept) and torch.equal(divided, turns < slow), (width, base_, length, fast)
            by[trunc] = yarn
        blends_differ += not torch.allclose(by[True], by[False], rtol=1e-6, atol=0)
    assert swept > 100 and blends_differ > 0, (swept, blends_differ)
    assert ramp(truncated) != ramp(loose) or not torch.allclose(truncated, loose, atol=1e-4)

    # whole pairs: the ramp's line, share = (i - low)/(high - low), meets 0 and 1 at whole pair indices with truncation
    def ends(x):
        a = ramp(x)[0]
        step = float(x[a + 1] - x[a])
        return a - float(x[a]) / step, a + (1 - float(x[a])) / step

    assert all(abs(e - round(e)) < 1e-3 for e in ends(truncated)), ends(truncated)
    assert not all(abs(e - round(e)) < 1e-3 for e in ends(loose)), ends(loose)


#: the block "Dynamic rules and the key cache", its second paragraph: the length transformers' dynamic rules read
DYNAMIC_LENGTH = (
    # fix pass 264 (read r263b #9, omission: the page's l is the input's length, the code's the largest position plus
    # 1): checked in test_transformers_dynamic_rules_read_the_largest_position
    "Transformers' `dynamic` and `longrope` read $\\ell$ as the largest entry of `position_ids` plus 1, one value for"
    " the whole batch. So a packed row alone, whose positions restart at each document, is scaled for its longest"
    " document, not for its whole length."
)


def test_transformers_dynamic_rules_read_the_largest_position():
    """:data:`DYNAMIC_LENGTH`: transformers 5.24's `dynamic_rope_update` sets the length of both `dynamic` and
    `longrope` from `torch.max(position_ids) + 1`. On a tiny Llama rotary module with `max_position_embeddings` L:
    `dynamic` with `factor` 2 scales a row of 2L positions but leaves a packed row of two documents of L tokens, 2L
    tokens in all, unscaled (the plain rotation's cos and sin); in a batch holding both rows, the packed row gets the
    long row's scale; `longrope` picks its long factors for the first row and its short ones for the packed row."""
    from transformers.modeling_rope_utils import dynamic_rope_update
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    assert DYNAMIC_LENGTH in block("Dynamic rules and the key cache")
    source = inspect.getsource(dynamic_rope_update)
    assert source.count("seq_len = torch.max(position_ids) + 1") == 2, source  # `longrope`'s update and `dynamic`'s
    assert 'if "dynamic" in rope_type:' in source and 'elif rope_type == "longrope":' in source
    d, L = 16, 32

    def module(params, **sizes):
        config = transformers.LlamaConfig(
            hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=params, **sizes
        )
        return LlamaRotaryEmbedding(config)

    dynamic = {"rope_type": "dynamic", "rope_theta": 10_000.0, "factor": 2.0}
    x = torch.zeros(1, 2 * L, 2 * d)
    whole = torch.arange(2 * L)[None]
    packed = torch.cat([torch.arange(L), torch.arange(L)])[None]  # two documents of L tokens, positions restarting
    plain = module({"rope_type": "default", "rope_theta": 10_000.0}, max_position_embeddings=L)
    scaled = module(dynamic, max_position_embeddings=L)
    cos_whole, _ = scaled(x, whole)
    assert not torch.allclose(cos_whole, plain(x, whole)[0])  # a row of 2L positions: scaled
    assert abs(float(plain.inv_freq[-1] / scaled.inv_freq[-1]) - 3) < 1e-4  # 1 + 2(2L/L - 1)
    alone = module(dynamic, max_position_embeddings=L)
    assert torch.allclose(alone(x, packed)[0], plain(x, packed)[0])  # the packed row of 2L tokens: not scaled
    batch = module(dynamic, max_position_embeddings=L)
    cos_batch, _ = batch(torch.zeros(2, 2 * L, 2 * d), torch.cat([whole, packed]))
    assert torch.allclose(cos_batch[:1], cos_whole)  # one value for the whole batch: the long row's
    assert not torch.allclose(cos_batch[1:], plain(x, packed)[0])  # the packed row gets the long row's scale
    longrope = {
        "rope_type": "longrope",
        "rope_theta": 10_000.0,
        "factor": 4.0,
        "short_factor": [1.0] * (d // 2),
        "long_factor": [4.0] * (d // 2),
        "original_max_position_embeddings": L,
    }
    for positions, by in ((whole, 4.0), (packed, 1.0)):
        rope = module(longrope, max_position_embeddings=4 * L)
        rope(x, positions)
        assert abs(float(plain.inv_freq[-1] / rope.inv_freq[-1]) - by) < 1e-4 * by, (by, rope.inv_freq[-1])


def test_dynamic_rows_cache_keeps_the_old_frequencies():
    """The block "Dynamic rules and the key cache": "With a cache of rotated keys, the usual kind, keys cached before a
    dynamic rule's scale changed keep their old frequencies, while new tokens get the new ones, as chapter 7 shows"; the
    row "dynamic (scaling)" keeps its definition alone. A tiny transformers Llama with `dynamic`
    RoPE fills its cache below L, then grows past L. The cached keys equal those of the short pass, not those a fresh
    pass over the whole input computes; the new keys equal the fresh pass's."""
    from transformers.models.llama import modeling_llama

    assert block("Dynamic rules and the key cache") == (
        "With a cache of rotated keys, the usual kind, keys cached before a dynamic rule's scale changed keep their old"
        " frequencies, while new tokens get the new ones, as chapter 7 shows. " + DYNAMIC_LENGTH
    )
    # fix pass 274 (read r271a #1, unclear: the link read as a section of this page): whose section it is
    assert "a scaling whose divisors are set from each input's length; see Reading model code's {ref}" in row(
        "dynamic (scaling) | 动态"
    )
    assert "cache" not in row("dynamic (scaling) | 动态")
    assert "Cached keys were rotated with the old base, and a new query with the new one." in chapter("07_beyond")
    forward = inspect.getsource(modeling_llama.LlamaAttention.forward)
    assert forward.index("apply_rotary_pos_emb(") < forward.index("cache.update(")  # rotated, then cached
    torch.manual_seed(0)
    L = 8
    cfg = transformers.LlamaConfig(
        vocab_size=32,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=L,
        rope_parameters={"rope_type": "dynamic", "rope_theta": 100.0, "factor": 4.0},
    )
    ids = torch.randint(0, 32, (1, 3 * L))
    with torch.no_grad():
        stepped = transformers.LlamaModel(cfg).eval()
        fresh = transformers.LlamaModel(cfg).eval()
        fresh.load_state_dict(stepped.state_dict())
        cache = stepped(input_ids=ids[:, :L], use_cache=True).past_key_values
        old = cache.layers[0].keys.clone()
        cache = stepped(input_ids=ids[:, L:], cache=cache, use_cache=True).past_key_values
        whole = fresh(input_ids=ids, use_cache=True).past_key_values.layers[0].keys
    keys = cache.layers[0].keys
    assert torch.equal(keys[:, :, :L], old)  # the cached keys keep their first rotation
    assert not torch.allclose(keys[:, :, :L], whole[:, :, :L], atol=1e-4)  # a fresh pass rotates them otherwise
    assert torch.allclose(keys[:, :, L:], whole[:, :, L:], atol=1e-5)  # the new keys: the new frequencies


def test_transformers_dynamic_keeps_the_longest_inputs_frequencies():
    """The note "*dynamic NTK*" in "Where papers and code differ": "the rule's $L$ is the trained length; transformers
    5.24's `dynamic` reads $L$ from `max_position_embeddings` and can carry a longer earlier input's scale to a later,
    shorter one", pointing to Reading model code's "Static and dynamic scaling rules", which says the same. Against the
    installed version (another version skips): transformers' `dynamic_rope_update` recomputes the frequencies only for
    an input longer than `max_seq_len_cached`, stores that length, and restores the original ones only below
    `original_max_seq_len`, both set from `max_position_embeddings` in Llama's rotary module; then that module with
    `dynamic`, run on inputs of 3L, then 2L (3L's frequencies, not the formula's at 2L: the carried scale), then L/2
    (the original ones); and on inputs that only grow, L + 1 to 4L, each giving the formula's frequencies (the "In
    models and code" bullet's $1 + s(\\ell/L - 1)$, evaluated)."""
    from transformers.modeling_rope_utils import dynamic_rope_update
    from transformers.models.llama import modeling_llama

    ((version, field, target),) = re.findall(
        r"^\| \*dynamic NTK\* \| the rule's \$L\$ is the trained length; transformers ([\d.]+)'s `dynamic` reads \$L\$"
        # fix pass 274 (read r271a #1, unclear: the bare heading read as a section of this page): whose section
        r" from `(\w+)` and can carry a longer earlier input's scale to a later, shorter one: see Reading model code's"
        r" \{ref\}`Static and dynamic scaling rules <([\w-]+)>` \|$",
        note("dynamic NTK"),
    )
    reading = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")
    assert f"({target})=\n## Static and dynamic scaling rules" in reading
    # the chapters' word, "static" (read r219 #1): every link to the section carries its heading
    glossary = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    # fix pass 274 (read r271a #1): each says it is Reading model code's (checked for every such link in
    # test_links_to_reading_model_code_say_whose_section_they_are)
    # fix pass 280 (reads r276a #7 and r276b #7, omission): a third "Reading model code's" link, in the Longer inputs
    # block "In models and code", to the section that cites Qwen's model cards
    assert glossary.count(f"Static and dynamic scaling rules <{target}>`") == 4
    assert glossary.count(f"Reading model code's {{ref}}`Static and dynamic scaling rules <{target}>`") == 3
    assert glossary.count(f"{{ref}}`Reading model code: Static and dynamic scaling rules <{target}>`") == 1
    assert "Fixed and dynamic scaling rules" not in glossary and "for a *static* rule, set from" in glossary
    assert "- Transformers' `dynamic` keeps the largest effective factor seen until" in reading
    function, cached, original = "dynamic_frequency_update", "max_seq_len_cached", "original_max_seq_len"
    ((_, formula),) = re.findall(
        r"- \*Dynamic NTK\*'s effective factor is (\d+) up to \$L\$, then \$([^$]+)\$\.",
        models_block("### Terms for longer inputs"),
    )
    assert "Below, $L$ is a model's *trained length*" in page()  # the rule's L, as the formula reads it
    if not transformers.__version__.startswith(f"{version}."):
        pytest.skip(f"transformers {transformers.__version__} installed, the page names {version}")
    source = re.sub(r"\s+", " ", inspect.getsource(dynamic_rope_update))
    assert f"def {function}(self, position_ids, device, layer_type=None):" in source
    assert "seq_len = torch.max(position_ids) + 1" in source  # an input's length: its last position plus 1
    assert f"max_seq_len_cached = self.{cached}" in source and "if seq_len > max_seq_len_cached: # growth" in source
    assert f'setattr(self, f"{{prefix}}{cached}", seq_len)' in source  # "then stores that length there"
    assert f"if seq_len < self.{original} and max_seq_len_cached > self.{original}: # reset" in source
    init = inspect.getsource(modeling_llama.LlamaRotaryEmbedding.__init__)
    assert f"self.{cached} = config.{field}" in init and f"self.{original} = config.{field}" in init
    L, d, base, s = 16, 32, 10_000.0, 4.0
    cfg = transformers.LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        max_position_embeddings=L,
        rope_parameters={"rope_type": "dynamic", "rope_theta": base, "factor": s},
    )
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    power = 2 * torch.arange(d // 2, dtype=torch.float64) / (d - 2)  # pair i divided by F^(2i/(d-2))

    def formulas(ell: int) -> torch.Tensor:
        return theta / evaluate(formula, s=s, ell=ell, L=L) ** power

    def run(module, ell: int) -> torch.Tensor:
        module(torch.zeros(1, ell, d), torch.arange(ell)[None])
        return module.inv_freq.double()

    module = modeling_llama.LlamaRotaryEmbedding(cfg)
    long = run(module, 3 * L)
    assert torch.allclose(long, formulas(3 * L), rtol=1e-5, atol=0)  # float32 frequencies
    assert getattr(module, cached) == 3 * L and getattr(module, original) == L
    later = run(module, 2 * L)  # shorter, still longer than L: the long input's frequencies
    # exact comparisons below: the module keeps its buffer, not recomputed, so the same floats by construction
    assert torch.equal(later, long) and not torch.allclose(later, formulas(2 * L), rtol=1e-3, atol=0)
    assert torch.allclose(run(module, L), long, rtol=0, atol=0)  # L itself is not shorter than L: kept too
    assert torch.allclose(run(module, L // 2), theta, rtol=1e-6, atol=0)  # shorter than L: the original ones
    assert getattr(module, cached) == L
    growing = modeling_llama.LlamaRotaryEmbedding(cfg)  # one generation: the length only grows
    for ell in range(L + 1, 4 * L + 1):
        assert torch.allclose(run(growing, ell), formulas(ell), rtol=1e-5, atol=0), ell


def test_mean_reach_bound_counts_d_over_2_partial_sums():
    """The row "mean reach": "how far the pairs' unit arrows, laid head to tail, reach at an offset $r$: the mean
    distance from the start to the chain's end after each arrow. RoFormer's decay bound is proportional to it, and its
    decay curve plots it; the block gives the formula" (fix pass 264: the arrows as vectors, no imaginary unit; fix
    pass 267: the idea in words before the formula; fix pass 272: the row's double sum left for the block's mean of
    the |S_j|, the same number, computed below from the arrows as vectors) (read r186: the row
    had named partial sums and their indices, which the block defines; the row says the same in a picture: the tip of
    the j-th arrow laid head to tail is the partial sum $S_j$); the block "RoFormer's bound, and what chapter 5 finds
    about the decay" by its summary: a mean over the d/2 partial sums, not over random draws, with the row's arrows
    the block's; the block under the Maths table gives its formula: "At an offset $r = n - m$, the partial sum $S_j =
    \\sum_{i<j} e^{\\mathrm{i} r\\theta_i}$ adds the first $j$ pairs' unit arrows. The *mean reach* at $r$ is the mean
    of $\\lvert S_1\\rvert, \\dots, \\lvert S_{d/2}\\rvert$" (chapter 5's $S_j$): a chain of d/2 unit arrows, its
    prefixes' lengths averaged. And the same block: "RoFormer's bound on the score is a content factor times $d/2$
    times the *mean reach*": that product is RoFormer's bound, max |h_{i+1} - h_i| times the sum of |S_j| over the d/2
    partial sums (posenc's mean reach), and it bounds the score."""
    ((over, proportional),) = re.findall(
        # fix pass 251 (read r245b #5: "each arrow's tip" read as one arrow's, always 1 from its own start): the mean
        # over the d/2 arrows of the chain's reach after each, the block's |S_1| ... |S_{d/2}|
        # fix pass 258 (read r253b #3: a 40-word clause that relied on S_j, defined only in the block): the formula,
        # then the picture in words
        # fix pass 267 (read r266b #3, unclear: the row opened on the double sum, readable only with the block): the
        # idea in plain words first, then the mean over the chain's steps, then the formula
        # fix pass 274 (read r271a #2, unclear: the row did not say what the mean is over): over the chain's d/2
        # arrows, the block's |S_1| ... |S_{d/2}| (its d/2 evaluated below: one tip for each pair's arrow)
        # fix pass 279 (read r275a #4, unclear: the mean's wording hard to parse): the steps in order, turn each arrow,
        # lay them head to tail, average the distance from the start to each arrow's end, the block's |S_1| ...
        # |S_{d/2}| (its d/2 evaluated below)
        r"\| at an offset \$r\$, turn each pair's unit arrow by its angle and lay the \$([^$]+)\$ arrows head to tail;"
        r" the mean reach is the average distance from the start to each arrow's end along the chain\."
        # fix pass 259 (read r259 #5: a learner searching RoFormer for the name finds nothing): whose name it is
        # fix pass 272 (read r269b #4 and #5, unclear: a double sum and a naming note in the cell): why it matters,
        # the bound's proportion to it (the block's product, evaluated below); the formula is the block's mean of
        # |S_1| ... |S_{d/2}|, and "The name is this book's" the block's
        # fix pass 280 (read r276b #5, unclear: "its decay curve" could be the bound's or RoFormer's): who plots it,
        # chapter 5 (its figure's curve "mean reach at each distance", checked below); the pointer to the block's
        # formula dropped, as the row is long
        r" RoFormer's decay bound is (proportional) to it; chapter 5 plots it \|",
        row("mean reach"),
    )
    nb5 = json.loads((ROOT / "notebooks" / "05_decay.ipynb").read_text(encoding="utf-8"))
    code5 = "".join("".join(c["source"]) for c in nb5["cells"] if c["cell_type"] == "code")
    assert 'label="mean reach at each distance"' in code5 and "posenc.rope_decay_bound(d, chunk)" in code5
    assert "on average" not in row("mean reach") and "distance" not in row("mean reach").replace(
        "average distance from the start", ""
    )  # |n - m| on this page: the row's one "distance" is the chain's, from its start to a tip
    ((partial, last),) = re.findall(
        r"- At an offset \$r = n - m\$, the partial sum \$(S_j = [^$]+)\$ adds the first \$j\$ pairs' unit arrows\."
        r" - The \*mean reach\* at \$r\$ is the mean of \$\\lvert S_1\\rvert, \\dots,"
        r" \\lvert S_\{([^}]+)\}\\rvert\$\. The name is this book's\. ",
        block("RoFormer's bound, and what chapter 5 finds about the decay"),
    )
    assert last == "d/2" == over, (last, over)  # one tip for each of the d/2 pairs' arrows, the row's and the block's
    # fix pass 264 (read r263b #5, unclear: the row's sum set the italic pair index i beside the upright imaginary
    # unit): the row writes each unit arrow as the vector (cos, sin), with no imaginary unit; k, the other letter
    # suggested, is this page's key vector. The block keeps chapter 5's complex S_j, whose real and imaginary parts are
    # the row's arrow's two coordinates (computed below)
    assert proportional == "proportional" and "mathrm{i}" not in row("mean reach") and "\\sum" not in row("mean reach")
    assert partial == "S_j = \\sum_{i<j} e^{\\mathrm{i} r\\theta_i}" and f"partial sums ${partial}$" in chapter(
        "05_decay"
    )
    (times,) = re.findall(
        # fix pass 251 (read r245 #4: RoFormer bounds the modulus of the complex sum; the score through |Re z| <= |z|)
        r"- RoFormer bounds the modulus of the complex sum \$[^$]+\$ by the \*content factor\* times \$([^$]+)\$ times"
        r" the \*mean reach\*\. ",
        block("RoFormer's bound, and what chapter 5 finds about the decay"),
    )
    g = torch.Generator().manual_seed(0)
    for d in (16, 64, 128):
        theta = posenc.rope_inv_freq(d, 10_000.0, dtype=torch.float64)
        assert evaluate(last, d=d) == theta.numel() == evaluate(times, d=d)  # one partial sum per pair
        r = torch.tensor([1.0, 7.0, 50.0, 400.0, 3000.0], dtype=torch.float64)
        reach = posenc.rope_decay_bound(d, r)
        terms = torch.polar(torch.ones(len(r), d // 2, dtype=torch.float64), r[:, None] * theta)
        sums = terms.cumsum(-1).abs().sum(-1)  # sum of |S_j| over j = 1 .. d/2
        assert torch.allclose(evaluate(times, d=d) * reach, sums, rtol=1e-12, atol=0), d
        # the row's arrows (cos r theta_i, sin r theta_i), added as vectors: the lengths of their partial sums are the
        # block's |S_j|
        angle = r[:, None] * theta
        vectors = torch.stack([torch.cos(angle), torch.sin(angle)], -1).cumsum(-2)
        assert torch.allclose(vectors.norm(dim=-1), terms.cumsum(-1).abs(), rtol=1e-12, atol=1e-12), d
        # the row's picture: the arrows laid head to tail, one after another; the mean distance from the start to
        # each arrow's tip is the mean reach
        for at_r, arrows in zip(reach.tolist(), terms):
            tip, tips = 0j, []
            for arrow in arrows.tolist():
                tip += arrow
                tips.append(abs(tip))
            assert abs(sum(tips) / len(tips) - at_r) < 1e-9 * max(1.0, at_r), (d, at_r)
            assert abs(2 / d * sum(tips) - at_r) < 1e-9 * max(1.0, at_r), (d, at_r)  # the row's 2/d and its sum
        for _ in range(20):
            h = torch.randn(d // 2, dtype=torch.complex128, generator=g)  # the pairs' query-key products
            score = (h * terms).sum(-1).abs()
            content = (torch.cat([h, h.new_zeros(1)]).diff()).abs().max()  # h_{d/2} = 0, as RoFormer's Abel step
            assert (score <= content * evaluate(times, d=d) * reach + 1e-9).all(), d


def test_fire_progressive_interpolation_range():
    """The row "progressive interpolation": "FIRE's input: a key's distance, rescaled by a learned log so that every
    key up to the query gets a value in $[0, 1]$"; the block "FIRE's progressive interpolation": "FIRE's input is
    $\\psi(\\lvert n - m\\rvert)/\\psi(\\max(m, L_{\\text{thr}}))$, where $\\psi(x) = \\log(\\lvert c\\rvert x + 1)$
    and $c$ and the threshold $L_{\\text{thr}}$ are learned; a key up to the query gets a value in $[0, 1]$":
    posenc's FIRE input, for either sign of c, is the page's psi of the distance over the page's psi of the larger
    of the query's position and the threshold, for every key up to each query, below and past the threshold; it lies
    in the page's interval and reaches both ends (the query's own key at 0, the first key of a query past the
    threshold at 1, up to FIRE's eps). Chapter 11's formula and the module's psi; the page's $m$ and $n$ are the
    query's and the key's positions."""
    ((row_low, row_high),) = re.findall(
        r"\| FIRE's input: a key's distance, rescaled on a log scale with learned constants so that every key up to"
        r" the query gets a value"
        r" in \$\[(\d+), (\d+)\]\$ \|",
        row("progressive interpolation"),
    )
    ((absolute, plus, low, high),) = re.findall(
        r"FIRE's input is \$\\psi\(\\lvert n - m\\rvert\)/\\psi\(\\max\(m, L_\{\\text\{thr\}\}\)\)\$, where"
        r" \$\\psi\(x\) = \\log\((\\lvert c\\rvert|c) x \+ (\d+)\)\$ and \$c\$ and the threshold"
        r" \$L_\{\\text\{thr\}\}\$ are learned; a key up to the query gets a value in \$\[(\d+), (\d+)\]\$",
        block("FIRE's progressive interpolation"),
    )
    assert (row_low, row_high) == (low, high), (row_low, row_high)
    assert "u = \\frac{\\psi(d)}{\\psi(\\max(i, L_{\\text{thr}}))}" in chapter("11_learned_position")  # i: the query
    assert letters("$m$").startswith("| $m$ | a query's position |")
    assert "| $n$ | a key's position |" in letters("$n$")
    from posenc.methods import fire as fire_module
    from posenc.methods.fire import FireBias

    assert "psi(x) = log(abs(c) x + 1)" in fire_module.__doc__
    positions = torch.arange(64, dtype=torch.float32)
    for sign in (1.0, -1.0):
        fire = FireBias(2, L_thr_init=16.0)
        with torch.no_grad():
            fire.c.mul_(sign)
            u = fire.normalized_distance(positions, positions)  # [query, key]
        c, threshold = float(fire.c.detach()), float(fire.threshold.detach())
        assert threshold == 16.0 and (c < 0) == (sign < 0)

        def psi(x: float, c=c) -> float:  # the page's psi
            return math.log((abs(c) if absolute == "\\lvert c\\rvert" else c) * x + int(plus))

        seen = u[torch.tril(torch.ones(64, 64, dtype=torch.bool))]  # keys up to the query
        assert float(seen.min()) >= float(low) and float(seen.max()) <= float(high), (seen.min(), seen.max())
        assert float(u.diagonal().abs().max()) == float(low) == 0.0  # the query's own key
        assert abs(float(u[63, 0]) - float(high)) < 1e-5  # the first key, for a query past the threshold
        for m in (3, 10, 40, 63):  # the query's position; below the threshold (16) the divisor is psi of it
            for n in (0, m // 2, m - 1):
                assert abs(float(u[m, n]) - psi(abs(n - m)) / psi(max(m, threshold))) < 1e-5, (sign, m, n)
                if m < threshold:  # the floor matters: the query's own position would give a larger value
                    assert psi(abs(n - m)) / psi(m) > float(u[m, n]) + 1e-3, (m, n)


def test_perplexity_is_e_to_the_loss_in_nats():
    """The row "perplexity": "$e^{\\text{loss}}$, with the loss in nats per token": the page's base is e, and the loss
    the chapters train with, torch's cross-entropy, is in nats: on uniform logits over 28 tokens (chapter 8's
    vocabulary) it is ln 28, not log2 28 or log10 28. No stored output prints both a loss and a perplexity, so there is
    no saved run to check the identity against."""
    (base,) = re.findall(
        r"\| perplexity \| 困惑度 \| \$(\w+)\^\{\\text\{loss\}\}\$, with the loss in (nats|bits) per token;", page()
    )
    assert base == ("e", "nats"), base
    loss = float(torch.nn.functional.cross_entropy(torch.zeros(3, 28, dtype=torch.float64), torch.tensor([0, 5, 27])))
    assert abs(loss - math.log(28)) < 1e-12 and abs(loss - math.log2(28)) > 1


def test_scales_tables_worked_row_yarns_factor_at_8():
    """The block "YaRN's and LongRoPE's attention factors, their names in code, and partial rotary heads": "In YaRN, the
    attention factor is $0.1 \\ln s + 1$. At $s = 8$, $a$ is about 1.21, so the logits are multiplied by $a^2$, about
    1.46; a temperature $t$ of about 0.69 would divide them to the same effect" (fix pass 266, reads r265 #2 and
    r265b #1: the example back in the block, after the formula; on the main line it stacked a fourth item before the
    table; fix pass 279, read r275b #4: a one-line example under the table as well): transformers' `yarn` attention
    factor
    at s = 8, its square, and the temperature that multiplies the logits by as much. The LongRoPE sentence is
    :func:`test_longrope_attention_factor`'s."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    # fix pass 264 (reads r263 #3 and r263b #3, unclear: the learner needs one example on the main line): the
    # block's example moved to the main line, before the table; the block keeps the formula
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("### Temperature and query scales") :]
    lead = " ".join(section[: section.index("| English |")].split())
    # fix pass 265 (reads r264 #1 and r264b #1): "With YaRN at $s = 8$", the example named as YaRN's
    # fix pass 266 (reads r265 #2 and r265b #1): in the block, right after YaRN's formula, which names YaRN
    # fix pass 279 (read r275b #4, unclear: multiplier and divisor flipped three times in one section): the block
    # says "multiplied" for the attention factor and "temperature" only for the divisor
    ((s, m, square, t),) = re.findall(
        r"In YaRN, the attention factor is \$[^$]+\$\. At \$s = (\d+)\$, \$a\$ is about ([\d.]+), so the logits are"
        r" multiplied by \$a\^2\$, about ([\d.]+); a temperature \$t\$ of about ([\d.]+) would divide them to the same"
        r" effect\.",
        " ".join(block(YARN_FACTORS).split()),
    )
    # fix pass 279 (read r275b #4): one example on the main line, right under the table, fixes the direction, the
    # block's numbers rounded alike
    after_table = " ".join(
        section[section.index("| logn attention (`use_logn_attn`) |") :].split("<details>")[0].split()
    )
    # fix pass 286 (reads r281a #7 and r281b #3, unclear: the 1.46 fact stated three times, burying the section's
    # point): the example sentence under the table went; the main line states the value once, in the row's multiplier
    # cell, under the meaning cell's conditions (checked just below); the block keeps the derivation
    assert "For example" not in after_table and "1.46" not in after_table, after_table
    assert (
        "; in a fully rotated head with no *QK-norm* after the rotation, doing so multiplies the logits by $a^2$"
        in (cells("attention factor")[2])
    )
    assert "1.46" not in lead
    assert page().count("1.46") == 2 and "as if a" not in " ".join(section.split())
    ((cell_square, cell_s),) = re.findall(
        r"^\$a\^2\$, about ([\d.]+) for YaRN at \$s = (\d+)\$, as query and key", cells("attention factor")[3]
    )
    assert (cell_square, cell_s) == (square, s), (cell_square, cell_s)
    cfg = transformers.LlamaConfig(
        hidden_size=256,
        num_attention_heads=2,
        head_dim=128,
        rope_parameters={
            "rope_type": "yarn",
            "rope_theta": 500_000.0,
            "factor": float(s),
            "original_max_position_embeddings": 8192,
        },
    )
    factor = ROPE_INIT_FUNCTIONS["yarn"](cfg, "cpu")[1]
    # the sentence before it: "In YaRN, the attention factor is $0.1 \\ln s + 1$.", read from the page and evaluated at
    # this s and at 2 and 40
    ((a, b),) = re.findall(r"In YaRN, the attention factor is \$([\d.]+) \\ln s \+ ([\d.]+)\$\.", page())
    assert abs(float(a) * math.log(float(s)) + float(b) - factor) < 1e-6, factor
    for other in (2.0, 40.0):
        cfg.rope_parameters["factor"] = other
        assert abs(float(a) * math.log(other) + float(b) - ROPE_INIT_FUNCTIONS["yarn"](cfg, "cpu")[1]) < 1e-6, other
    assert f"{factor:.2f}" == m and f"{factor**2:.2f}" == square and f"{1 / factor**2:.2f}" == t, factor


# ---- the checkpoint conversion between layouts, `position_ids`, the letters section's names -------------------------


def test_converting_an_interleaved_checkpoint_to_the_half_layout_keeps_the_scores():
    """The block "Where papers and code differ", its interleaved layout row: "Converting a checkpoint to the *half
    layout* keeps its scores by reordering each head's rows of $W_q$ and $W_k$, even rows first, and any bias or norm
    weight applied before the rotation": transformers' loader reorders rows so (`PermuteForRope`, even rows first within
    each head, for weights and biases), and a two-head attention with biases and a per-dimension QK-norm weight, rotated
    with posenc in each layout, gives the same scores after that reordering and different ones without it."""
    from transformers.core_model_loading import PermuteForRope

    assert (
        "Converting a checkpoint to the *half layout* keeps its scores by reordering each head's rows of $W_q$ and"
        " $W_k$, even rows first, and any bias or norm weight applied before the rotation |"
        in note("interleaved layout")
    )
    assert "| *interleaved layout* | Meta's Llama code uses it, transformers' Llama code the *half layout*." in (
        note("interleaved layout")
    )
    assert "`rotate_half`" in models_block("## Encodings")  # test_half_layouts_partner_in_transformers
    heads, d, width, n = 2, 8, 12, 6
    even_first = torch.cat([torch.arange(0, d, 2), torch.arange(1, d, 2)])  # within one head
    order = torch.cat([h * d + even_first for h in range(heads)])
    config = type("Config", (), {"num_attention_heads": heads})()
    probe = torch.arange(heads * d * 3, dtype=torch.float64).reshape(heads * d, 3)
    assert torch.equal(PermuteForRope()._permute_for_rope(probe, config), probe[order])  # transformers' loader
    assert torch.equal(PermuteForRope()._permute_for_rope(probe[:, 0], config), probe[order, 0])  # and biases
    g = torch.Generator().manual_seed(0)
    x = torch.randn(n, width, generator=g, dtype=torch.float64)
    wq, wk = torch.randn(2, heads * d, width, generator=g, dtype=torch.float64)
    bq, bk = torch.randn(2, heads * d, generator=g, dtype=torch.float64)
    norm = torch.rand(d, generator=g, dtype=torch.float64) + 0.5  # a QK-norm weight, per head dimension

    def scores(wq, bq, wk, bk, norm, layout):
        cos, sin = posenc.rope_cos_sin(n, d, 100.0, layout=layout, dtype=torch.float64)
        out = []
        for w, b in ((wq, bq), (wk, bk)):
            v = (x @ w.T + b).reshape(n, heads, d).transpose(0, 1)  # [heads, n, d]
            v = v / v.pow(2).mean(-1, keepdim=True).sqrt() * norm  # RMS norm, then its weight, before the rotation
            out.append(posenc.apply_rope(v, cos, sin, layout=layout))
        return out[0] @ out[1].transpose(-1, -2)

    meta = scores(wq, bq, wk, bk, norm, "interleaved")
    converted = scores(wq[order], bq[order], wk[order], bk[order], norm[even_first], "half")
    assert torch.allclose(meta, converted, atol=1e-10, rtol=0)
    assert not torch.allclose(meta, scores(wq, bq, wk, bk, norm, "half"), atol=1e-3)  # not reordered: other scores
    assert not torch.allclose(meta, scores(wq[order], bq[order], wk[order], bk[order], norm, "half"), atol=1e-3)


def test_sequence_packing_row_defines_position_ids_as_reading_code_does():
    """The sequence packing row, "several documents in one training row", a definition only, and its caveat in the
    section's "In models and code" block: "In *sequence packing*, `position_ids`, the positions a transformers model
    is given, can restart at 0 for each document. That alone does not keep the documents apart in every call: a
    document mask or FlashAttention's varlen bounds does. Transformers builds both from those restarts, the mask only
    when it gets no attention mask and no cache": transformers' own packing collator
    numbers each document from 0, its varlen bounds start at each restart, and an eager Llama given only the restarts
    lets the second document attend to the first, while a document mask does not. The bullet defines
    `position_ids` where it uses it: "the positions a transformers model is given", as Reading model code's
    row does ("the argument that gives a transformers model each token's
    position"); a Llama model given a packed row's `position_ids` rotates each document from 0, so a document's
    keys do not depend on what was packed before it."""
    assert cells("sequence packing")[2] == "several documents in one training row"
    assert (
        "- In *sequence packing*, `position_ids`, the positions a transformers model is given, can restart at 0 for"
        " each document. That alone does not keep the documents apart in every call: a document mask or"
        " FlashAttention's varlen bounds does. Transformers builds both from those restarts, the mask only when it"
        " gets no attention mask and no cache." in models_block("## Attention, kernels and models")
    )
    # "FlashAttention's varlen bounds, which transformers derives from those restarts": the cumulative lengths that
    # transformers hands flash_attn_varlen_func start a document at each restart
    from transformers.modeling_flash_attention_utils import prepare_fa_kwargs_from_position_ids

    (bounds, _), _ = prepare_fa_kwargs_from_position_ids(torch.tensor([[0, 1, 2, 3, 4, 0, 1, 2, 3]]))
    assert bounds.tolist() == [0, 5, 9], bounds
    collated = transformers.DataCollatorWithFlattening()([{"input_ids": [5, 6, 7]}, {"input_ids": [8, 9]}])
    assert collated["position_ids"].tolist() == [[0, 1, 2, 0, 1]], collated["position_ids"]
    code = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")
    assert "| `position_ids` | the argument that gives a transformers model each token's position," in code
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(
        vocab_size=32,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    model = transformers.LlamaModel(cfg).eval()
    first, second = torch.randint(0, 32, (1, 5)), torch.randint(0, 32, (1, 4))
    packed = torch.cat([first, second], 1)
    ids = torch.tensor([[0, 1, 2, 3, 4, 0, 1, 2, 3]])
    with torch.no_grad():
        keys = model(input_ids=packed, position_ids=ids, use_cache=True).past_key_values.layers[0].keys
        alone = model(input_ids=second, use_cache=True).past_key_values.layers[0].keys
    assert torch.allclose(keys[:, :, 5:], alone, atol=1e-5)  # the second document's keys, rotated from 0
    # "Restarting positions ... does not by itself stop attention across the boundary": with the restarts but a plain
    # causal mask (eager attention), the second document's outputs depend on the first; a document mask makes them equal
    model.config._attn_implementation = "eager"
    with torch.no_grad():
        mixed = model(input_ids=packed, position_ids=ids).last_hidden_state[:, 5:]
        solo = model(input_ids=second).last_hidden_state
        causal = torch.tril(torch.ones(9, 9, dtype=torch.bool))
        causal[5:, :5] = False  # the document mask: no query of the second document sees the first
        bias = torch.zeros(1, 1, 9, 9).masked_fill(~causal, torch.finfo(torch.float32).min)
        kept = model(input_ids=packed, position_ids=ids, attention_mask=bias).last_hidden_state[:, 5:]
    assert not torch.allclose(mixed, solo, atol=1e-3), float((mixed - solo).abs().max())
    assert torch.allclose(kept, solo, atol=1e-5), float((kept - solo).abs().max())
    # "the mask only when it gets no attention mask and no cache": the same call with use_cache=False (no cache
    # object) masks the boundary from the restarts alone, in eager and SDPA attention
    for implementation in ("eager", "sdpa"):
        model.config._attn_implementation = implementation
        with torch.no_grad():
            built = model(input_ids=packed, position_ids=ids, use_cache=False).last_hidden_state[:, 5:]
            cached = model(input_ids=packed, position_ids=ids, use_cache=True).last_hidden_state[:, 5:]
        assert torch.allclose(built, solo, atol=1e-5), (implementation, float((built - solo).abs().max()))
        assert not torch.allclose(cached, solo, atol=1e-3), implementation


SCORE_LETTERS = (
    # read r220: "score" keeps one meaning on this page, the raw q . k; the core row's logit is the score over sqrt(d)
    # fix pass 230 (reads r222, r224-r228: "logit (score)" named the two words as one): the core table has a row for
    # each word, *score* and *logit*, and this row names the first
    "| score | the raw $q \\cdot k$, after rotation under RoPE, as in chapter 5 and the rows *score*,"
    " *long-term decay* and *lower bound on the base* | the *logit* itself in chapter 1, whose score matrix is"
    " $QK^\\top/\\sqrt d$ |"
)


def test_letters_score_row_is_chapter_5s_raw_rotated_product():
    """The Letters table's score row (read r201: the core row defined "logit (score)" as $q \\cdot k/\\sqrt d$, while
    chapter 5 and the rows built on it say score for the raw $q \\cdot k$ after rotation; read r220: the core row now
    calls the logit the score divided by $\\sqrt d$, so score means the raw product on the whole page, and chapter 1,
    whose score matrix is $S = QK^\\top/\\sqrt d$, is the other meaning): :data:`SCORE_LETTERS`, right after the logit
    row. Chapter 5 says so in its own words ("A RoPE score is a sum of rotating arrows", "Attention
    divides raw scores $q \\cdot k$ by $\\sqrt d$"); the RoFormer block's score is chapter 5's
    $\\mathrm{Re}\\sum_i h_i e^{\\mathrm{i} r\\theta_i}$, which equals the dot product of the rotated query and key,
    with no $1/\\sqrt d$, computed here with posenc's RoPE; the two rows named use the word score."""
    assert letters("score") == SCORE_LETTERS
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    lines = raw[raw.index("(glossary-letters)=") : raw.index("(glossary-papers)=")].splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("| logit | ")]
    assert len(at) == 1 and lines[at[0] + 1].startswith("| score | "), at  # right after the logit row
    c5 = " ".join(chapter("05_decay").split())
    assert "A RoPE score is a sum of rotating arrows" in c5
    assert "Attention divides raw scores $q \\cdot k$ by $\\sqrt d" in c5
    assert (
        "The score, chapter 5's $\\mathrm{Re}\\sum_i h_i e^{\\mathrm{i} r\\theta_i}$, the query–key product"
        " after rotation, is at most that modulus, so the bound holds for it too."
        in block("RoFormer's bound, and what chapter 5 finds about the decay")
    )
    assert "the query's pair, conjugated, times the key's" in block(
        "RoFormer's bound, and what chapter 5 finds about the decay"
    )
    assert "RoPE's scores fall with distance" in row("long-term decay")
    # fix pass 230, one decision for the word pair named at six reads (r222, r224-r228): the core table gives each
    # word its own row, the score before the logit ("Read these rows in order"); no row title joins them, and the
    # Letters table keeps its own two rows (:func:`row` reads the term tables, :func:`letters` that table)
    assert "logit (score)" not in page() and "logit（分数）" not in page()
    score = cells("score")
    assert score[:2] == ["score", "分数"]
    assert score[2].startswith("the dot product $q \\cdot k$ of one query and one key,")
    # fix pass 232 (read r231 #6: the row gave chapter 1's other meaning before the idea): the page's meaning alone;
    # chapter 1's is the Letters table's score row (SCORE_LETTERS), as for every letter and word since fix pass 231
    # fix pass 264 (reads r263 #2 and r263b #7, unclear: a learner from chapter 1 met the other meaning with no
    # warning on the main line): one clause after the page's meaning, chapter 1's name for the logit (its score matrix
    # is the logit matrix, checked below in chapter 1's own words)
    # fix pass 272 (read r269b #5, unclear: a chapter caveat in the cell): chapter 1's name for the logit moved to the
    # Letters section's main-line table (:func:`test_letters_main_line_table_of_four_differences_follows_the_chapters`)
    assert score[2] == "the dot product $q \\cdot k$ of one query and one key, under RoPE after the rotation", score[2]
    assert "| the *score* in chapter 1 |" in page()
    assert row("logit").startswith(
        # fix pass 242 (read r241 #1: the Chinese column is blank where the edition keeps the English, as for NoPE)
        "| logit | | the number the softmax reads for one query and key: usually the *score* divided by"
        " $\\sqrt d$, where $d$ is the width of one attention head |"
    )
    core = page()[page().index("(glossary-core)=") : page().index("(glossary-encodings)=")]
    assert core.index("| score | 分数 |") < core.index("| logit | |") < core.index("| causal mask |")
    # the cited chapters say score for the rotated product: chapter 4 checks "that the score depends on the offset
    # alone"; chapter 5's sentences are checked above
    assert [c[:2] for c in re.findall(r"\{doc\}`\d+ <\.\./notebooks/(\w+)>`", score[3])] == ["04", "05"]
    assert "check that the score depends on the offset alone" in " ".join(chapter("04_rope").split())
    c1 = " ".join(chapter("01_why_position").split())
    assert "S = \\frac{QK^\\top}{\\sqrt{d}}, $$ where $S$ is the score matrix" in c1  # chapter 1's scaled scores
    assert "a *matching key*'s expected score stay at or above zero" in row("lower bound on the base")
    # the block's score, Re sum_i h_i e^{i r theta_i} with h_i = conj(q_i) k_i, r = n - m, is the rotated q . k itself
    d, m, n = 16, 5, 12
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(d, generator=g, dtype=torch.float64), torch.randn(d, generator=g, dtype=torch.float64)
    theta = posenc.rope_inv_freq(d, dtype=torch.float64)
    cos, sin = posenc.rope_cos_sin(torch.tensor([m, n]), d, inv_freq=theta, dtype=torch.float64)
    rq = posenc.apply_rope_rotate_half(q[None], cos[:1], sin[:1])[0]
    rk = posenc.apply_rope_rotate_half(k[None], cos[1:], sin[1:])[0]
    qc, kc = torch.complex(q[: d // 2], q[d // 2 :]), torch.complex(k[: d // 2], k[d // 2 :])  # half layout pairs
    h = qc.conj() * kc
    score = float((h * torch.exp(1j * (n - m) * theta)).real.sum())
    assert abs(score - float(rq @ rk)) < 1e-10, (score, float(rq @ rk))
    assert abs(score - float(rq @ rk) / math.sqrt(d)) > 1e-3  # not the logit's scale


def test_letters_sections_visible_sentence_names_rows_of_its_table():
    """The letters section's main line, "Some letters and words change meaning between chapters, or between rows of this
    page. They include the letters $i$, $m$ and $s$ and the words distance, temperature, fast and kept.", whose first
    five names are the table's first five rows, and whose last two, fast and kept, are its rows that clash most directly
    with this page's own terms (read r188: a learner from chapter 7 or 8 meets them in another sense; their rows are
    checked against chapters 7 and 8 in
    :func:`test_fast_pair_row_is_one_definition_and_the_turns_in_l_count_is_in_the_block` and
    :func:`test_chapter_8_words_from_the_saved_run`); then one collapsed block (r177: the chapter-by-chapter evidence is
    collapsed) that holds the one table, "letter or word | meaning here | meaning elsewhere", and the pointer to the
    design notes: each row whole, this page's meaning and the other chapters'. Its first five rows: distance (never
    negative here, signed in chapters 3, 5 and 10), $i$ (a pair's index here, a query's position in chapters 1, 3, 6, 8
    and 11), $m$ (a query's position here, a key's position in chapter 9, ALiBi's slope $m_h$ in chapter 6), $s$
    (`factor` here, the stretch in chapter 8) and temperature (a divisor here, a growing multiplier in chapter 8);
    chapter 9's markdown writes "key $m$", chapter 8's "*stretch* $s$" and "An attention temperature that grows". The
    rows for $m$'s slope and $k$, clashes between chapters, and $c$, a clash between this page's rows, are checked here
    too."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("(glossary-letters)=\n## ") : raw.index("(glossary-papers)=")]
    assert section.count("<details>") == section.count("</details>") == 1 and section.count("| letter or word |") == 1
    opening = "<details><summary>Each letter and word, with its meaning here and elsewhere</summary>"
    main, collapsed = section.split(opening)
    assert "| letter or word |" in collapsed.split("</details>")[0], "the table is in the collapsed block"
    assert "{ref}`more, chapter by chapter <design-letters>`" in collapsed.split("</details>")[0]
    assert not collapsed.split("</details>")[1].strip(), "nothing after the block"
    ((named_things, named_words),) = re.findall(
        # fix pass 285 (read r280b #3, unclear: the list of letters and words did not match the table under it): the
        # intro names the table's four rows by what they hold (checked below against the table's first cells), and
        # the block's fast and kept; s, distance and temperature are named in the collisions paragraph
        r"^\(glossary-letters\)= ## Letters and words with more than one meaning Some letters and words change meaning"
        r" between chapters, or between rows of this page\. The table below gives four things chapters write"
        r" differently: (.*?)\. The block after it lists more, (.*?) among them\."
        # fix pass 259 (read r259 #6: the main line named the clashes and gave no meaning): one example, m's three
        # meanings, in the block's m row (checked below against letters("$m$"))
        # fix pass 272 (read r269a #2, unclear: the chapters' other letters were only in collapsed blocks): the
        # example became a short main-line table of four differences, :data:`LETTERS_MAIN_HEADER`, checked against
        # the chapters in :func:`test_letters_main_line_table_of_four_differences_follows_the_chapters`
        r" \| what \| on this page \| in some chapters \|",
        " ".join(main.split()),
    )
    things = re.split(r", and |, ", named_things)
    assert things == ["positions", "offset and distance", "logit", "ALiBi's slope"], things
    main_rows = [
        line for line in main.splitlines() if line.startswith("| ") and not line.startswith("| what | on this page")
    ]
    assert len(main_rows) == len(things) == 4, main_rows  # "four"
    assert [k in r for k, r in zip(("positions", "*offset*", "*logit*", "*slope*"), main_rows)] == [True] * 4
    assert "*distance*" in main_rows[1] and "ALiBi" in main_rows[3]
    named = ["$i$", "$m$", "$s$", "distance", "temperature"] + re.split(r", | and ", named_words)
    assert named[-2:] == ["fast", "kept"], named
    visible = re.sub(r"\s+", " ", collapsed)
    ((d_chapters, i_chapters, m_chapter, m_slope, slope_chapter, s_factor, s_chapter, t_chapter),) = re.findall(
        r"^ \| letter or word \| meaning here \| meaning elsewhere \| \|---\|---\|---\|"
        r" \| distance \| \$\\lvert n - m\\rvert\$, never negative \| signed, as this page's \*offset\*: (.*?);"
        r" unsigned, [^|]* \|"
        r" \| \$i\$ \| a pair's index, from 0; [^|]* \| a query's position in chapters ([\d, and]+), with \$j\$ the"
        r" key's; [^|]* \|"
        r" \| \$m\$ \| a query's position \| a key's position in chapter (\d+); ALiBi's \*slope\*, \$m\$ in"
        r" chapter \d+ and \$(m_h)\$ in chapter (\d+); [^|]* \|"
        r" \| \$s\$ \| the \*extension factor\* `(\w+)` \| in chapter (\d+), the \*stretch\* of an input of \$n\$"
        r" tokens; [^|]* \|"
        r" \| temperature \| a number \$t\$ that divides the logits \| a multiplier of the logits: in chapter (\d+),"
        r" one that grows with the query's position, [^|]* \|"
        r" \| \$c\$ \|",
        visible,
    )
    # the collapsed table's rows, after its header (fix pass 272: the main line above the block has a table too)
    rows = [line for line in collapsed.split("</details>")[0].splitlines() if line.startswith("| ")][1:]
    terms = [line.split(" | ")[0][2:] for line in rows]
    assert set(named) <= set(terms), named  # fix pass 285: every name the intro and the collisions give is a row
    # fix pass 265 (read r264b #3, omission: factor, dynamic and interleaved; read r264 #3: the letters $p$ and $N$):
    # five rows more, checked in :func:`test_letters_rows_for_factor_dynamic_interleaved_p_and_n`
    assert len(terms) == len(set(terms)) == 26, terms  # one row for each letter or word, each whole
    # extrapolation: a model's behaviour here (its row), and in chapter 7 and the interpolation row also the angles of
    # a pair whose frequency is left unchanged ("Plain extrapolation goes beyond the trained range", chapter 7)
    assert letters("extrapolation").startswith(
        "| extrapolation | how a model, unchanged, behaves on inputs longer than its training | in chapter 7 and the"
        " *interpolation* row, also a pair's angles running past the trained range, its frequency unchanged |"
    )
    assert row("extrapolation (length generalisation)").split(" | ")[2].startswith("how a model, unchanged, behaves")
    assert "Plain extrapolation goes beyond the trained range" in chapter("07_beyond")
    assert "running past it unchanged is *extrapolation*" in row("interpolation")
    assert all(len(re.split(r"(?<!\\)\|", line)) == 5 for line in rows), rows  # three cells each
    # i: a pair's index on this page (the frequency row), a query's position in the chapters the row lists
    assert "counting pairs from 0" in row("frequency") and "| a pair's index, from 0;" in letters("$i$")
    assert {int(n) for n in re.findall(r"\d+", i_chapters)} == {1, 3, 6, 8, 11}  # chapter by chapter: below
    # temperature: chapter 8's own words for a growing multiplier, Scalable-Softmax's on the logits and Llama 4's on
    # the queries (so on the logits too), and chapter 10's query temperature, which multiplies the queries
    assert int(t_chapter) == 8 and letters("temperature") == TEMPERATURE_LETTERS
    # fix pass 279 (reads r275b #3 and r275a #2, unclear: nothing said which of the block's many collisions matter
    # most): one main-line sentence under the four differences' table names three, each read against its block row
    # fix pass 280 (read r276b #3, unclear: "multiplies in chapters 8 and 10", though chapter 10 also uses the word
    # for YaRN's paper's divisor): the chapters "also use the word for a multiplier", chapter 10 for Llama 4's tau;
    # checked below against both chapters' markdown
    # fix pass 285 (read r280a #6, unclear: three collisions in one hard sentence): one short sentence each
    ((three_s, three_signed_a, three_signed_b, three_t_a, three_t_b),) = re.findall(
        r"Three collisions matter most\. The letter \$s\$ is a factor here but a stretch in chapter (\d+)\. A"
        r" \*distance\* is never negative here but signed in chapters (\d+) and (\d+)\. A \*temperature\* divides here,"
        r" but chapter (\d+) also uses the word for a multiplier, and so does chapter (\d+) for Llama 4's \$\\tau\$\.",
        " ".join(main.split()),
    )
    c8_md, c10_md = (" ".join(chapter(nb).split()) for nb in ("08_extrapolation", "10_rope_today"))
    assert (three_t_a, three_t_b) == ("8", "10")
    assert "An attention temperature that grows with the query's position: Scalable-Softmax scales the logits" in c8_md
    assert "Llama 4 adds a *query temperature* $\\tau$ for these layers: it multiplies the queries" in c10_md
    assert "YaRN's paper divides the logits by a temperature $t$" in c10_md  # "also": chapter 10 uses both senses
    assert int(three_s) == int(s_chapter) == 8 and s_factor == "factor"
    assert re.findall(r"in chapter (\d+)", d_chapters) == [three_signed_a, three_signed_b] == ["3", "5"], d_chapters
    assert f"in chapter {three_t_a}, one that grows" in TEMPERATURE_LETTERS and three_t_a == t_chapter
    assert f"in chapter {three_t_b}, Llama 4's $\\tau$" in TEMPERATURE_LETTERS
    assert " ".join(main.split()).index("Three collisions") > " ".join(main.split()).index("| what |")
    assert "Llama 4 adds a *query temperature* $\\tau$ for these layers: it multiplies the queries" in chapter(
        "10_rope_today"
    )
    # "in chapter 10, Llama 4's $\tau$ and scales like it": its field table's `llama_4_scaling_beta`, "the slope of a
    # temperature like Llama 4's, on every layer of Ministral 3 and Mistral 4"
    assert "the slope of a temperature like Llama 4's, on every layer of Ministral 3 and Mistral 4" in chapter(
        "10_rope_today"
    )
    assert (
        "- An attention temperature that grows with the query's position: Scalable-Softmax scales the logits by"
        " the logarithm of the number of tokens attended ([Nakanishi 2025](https://arxiv.org/abs/2501.19399"
        ' "cite:nakanishi2025scalable")), and `transformers`\' Llama 4 scales the queries of its NoPE layers'
        " (`attn_temperature_tuning`)." in " ".join(chapter("08_extrapolation").split())
    )
    # the table's clashes: m's slope and k's shift between chapters, c's three constants between this page's rows
    slope = "m_h"  # the $m$ row's "ALiBi's *slope*, $m$ in chapter 3 and $m_h$ in chapter 6": the chapter's letter
    assert m_slope == slope and int(slope_chapter) == 6, (m_slope, slope_chapter)
    assert "a head's fixed positive number:" in row("slope (ALiBi)") and slope not in row("slope (ALiBi)")
    assert f"with a fixed slope ${slope}$ for each head" in chapter(f"{int(slope_chapter):02d}_alibi")
    assert "| a key's position in chapter 9; ALiBi's *slope*, $m$ in chapter 3 and" in letters("$m$")
    assert int(m_chapter) == 9
    k_chapter = c_chapter = 3
    signed = [int(c) for c in re.findall(r"\d+", d_chapters)]
    # k: the key vector of the logit row; the linear relation row writes its shift in words; Shaw's clip in chapter 3
    # fix pass 230: the product is the *score* row's
    assert "the dot product $q \\cdot k$ of one query" in row("score") and "for each shift, one linear map" in row(
        "linear relation"
    )
    assert "$k$" not in row("linear relation")
    assert "$c = \\mathrm{clip}(j - i, k)$" in chapter(f"{int(k_chapter):02d}_relative")
    assert "the clipping distance of Shaw's vectors in chapter 3" in letters("$k$")
    # and c, in two places, each a formula's: soft-capping's bound and FIRE's learned constant, FIRE's from chapter
    # 11; Scalable-Softmax's learned number and the bound in Gemma 2's bullet are in words (read r182: $c$ had three
    # meanings on this page), and the Letters row lists exactly the two
    assert "by $c \\tanh(x/c)$, which keeps it between $-c$ and $c$" in row("logit soft-capping")
    assert "and $c$ and the threshold $L_{\\text{thr}}$ are learned" in block("FIRE's progressive interpolation")
    assert "\\psi(x) = \\log(\\lvert c\\rvert x + 1)" in chapter("11_learned_position")
    assert "$c$" not in row("Scalable-Softmax") and "the bound $c$" not in page()
    raw_page = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    uses_c = {
        line[:40]
        for line in raw_page[: raw_page.index("(glossary-letters)=")].splitlines()
        if any(re.search(r"(?<![\\a-z])c(?![a-z])", span) for span in re.findall(r"\$([^$]+)\$", line))
    }
    assert len(uses_c) == 3, uses_c  # the soft-capping row and the FIRE block's two lines
    assert letters("$c$").startswith(
        "| $c$ | the bound of *logit soft-capping* in its row; FIRE's learned constant in the block on FIRE |"
    )
    assert "with $c = \\mathrm{clip}(j - i, k)$" in chapter(f"{int(c_chapter):02d}_relative")
    assert "| $\\lvert n - m\\rvert$, never negative |" in letters("distance")
    for c, form in zip(signed, ("*: $j - i$ in chapter 3", "$r = n - m$ in chapter 5"), strict=True):
        assert form.endswith(f"chapter {c}") and form in letters("distance"), (c, form)
    assert int(s_chapter) == 8 and s_factor == "factor"
    names = {"09": "09_performance", "08": "08_extrapolation"}
    assert "key $m$" in chapter(names[f"{int(m_chapter):02d}"])
    assert "*stretch* $s = \\max(n / L, 1)$" in chapter(names[f"{int(s_chapter):02d}"])
    for name in ("$i$", "$m$", "$s$", "distance", "temperature"):
        assert f"\n| {name} |" in collapsed, name
    assert terms[:5] == ["distance", "$i$", "$m$", "$s$", "temperature"], terms  # the commonest first
    # the main line names the table's first five rows, then the two words that clash with this page's own rows: fast,
    # the *fast pair* row's word, which chapter 7's YaRN row uses for the pairs YaRN keeps, and kept, the *kept (pair)*
    # row's word, which chapter 8 uses for a retrieval grade
    assert named == ["$i$", "$m$", "$s$", "distance", "temperature", "fast", "kept"], named
    assert sorted(named[:5]) == sorted(terms[:5]) and set(named[5:]) <= set(terms), named
    assert row("fast pair").startswith("| fast pair |") and row("kept (pair)").startswith("| kept (pair) |")
    assert "| YaRN (`yarn`) | fast pairs kept," in chapter("07_beyond")
    assert re.search(
        r"\| retrieval is \*kept\* \| \d+ % of passkeys found", " ".join(chapter("08_extrapolation").split())
    )
    assert "Shaw's clipped offset $c = \\mathrm{clip}(j - i, k)$ in chapter 3 |" in letters("$c$")


#: the header of the Letters section's main-line table (fix pass 272, read r269a #2, unclear: the letters and words
#: that differ between chapters were only in collapsed blocks): four differences, each checked against the chapters
LETTERS_MAIN_HEADER = "| what | on this page | in some chapters |"


def test_letters_main_line_table_of_four_differences_follows_the_chapters():
    """The Letters section's main-line table, above its block: the query's and key's positions ($m$ and $n$ here; $i$
    and $j$ in the chapters whose markdown writes the offset $j - i$, each saying so in its own words; $m$ for a key in
    chapter 9), the signed offset (called the *distance* in chapters 3 and 5, with their letters), the logit (chapter
    1's *score*, its score matrix $QK^\\top/\\sqrt d$) and ALiBi's slope ($m$ in chapter 3, $m_h$ in chapter 6; no
    letter on this page). Each chapter number is read from the table and looked up in that chapter's markdown, so the
    test fails if a chapter stops using the letter or word; each row agrees with the collapsed table's row for it."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("(glossary-letters)=\n## ") : raw.index("(glossary-papers)=")]
    main = section[: section.index("<details>")]
    # fix pass 279 (reads r275b #3 and r275a #2): the table, then one sentence on the three collisions that matter most
    lines = main[main.index(LETTERS_MAIN_HEADER) :].strip().split("\n\n")[0].splitlines()
    assert lines[1] == "|---|---|---|" and len(lines) == 6, lines  # four rows, then the sentence and the block
    table = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines[2:]]
    assert all(len(cells) == 3 for cells in table), table
    stems = {int(Path(p).name[:2]): Path(p).stem for p in glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))}
    # 1. positions: this page's m and n, the offset row's; i and j in exactly the chapters that write j - i
    positions, here, there = table[0]
    assert positions == "a query's and a key's positions" and here == "$m$ and $n$", table[0]
    assert "for a query at position $m$ and a key at $n$" in row("offset")
    ((ij, key_m),) = re.findall(
        r"^\$i\$ and \$j\$ in chapters ([\d, and]+); \$m\$ for a key's in chapter (\d+)$", there
    )
    ij_chapters = {int(n) for n in re.findall(r"\d+", ij)}
    assert ij_chapters == {n for n, stem in stems.items() if re.search(r"j ?- ?i\b", chapter(stem))}, ij_chapters
    own = {  # each chapter's own words: i the query's position, j the key's
        1: "the query token at $i$",
        3: "$j - i$ for a query at $i$ and a key at $j$",
        6: "keys $j \\le i$",
        8: "the book's relative position $j - i$, key minus query",
        11: "A query sits at position $i$ and a key at $j$.",
    }
    assert set(own) == ij_chapters
    for n, phrase in own.items():
        assert phrase in chapter(stems[n]), (n, phrase)
    assert "key $m$" in chapter(stems[int(key_m)]) and int(key_m) == 9
    assert f"a query's position in chapters {ij}, with $j$ the key's;" in letters("$i$")
    assert f"| a key's position in chapter {key_m};" in letters("$m$")
    # 2. the signed offset: this page's offset and distance rows; chapters 3 and 5 call it the distance
    offset, here, there = table[1]
    assert offset == "key position minus query position" and here == (
        "the *offset*, $n - m$; its size is the *distance*, never negative"
    ), table[1]
    assert row("offset").startswith("| offset | 偏移 | key position minus query position, $n - m$,")
    assert "| how far a key lies from its query, $\\lvert n - m\\rvert$, never negative |" in row("distance | 距离")
    ((form_a, chapter_a, form_b, chapter_b),) = re.findall(
        r"^the \*distance\*, \$([^$]+)\$ in chapter (\d+) and \$([^$]+)\$ in chapter (\d+)$", there
    )
    signed = {  # each chapter's sentence that makes its distance key minus query, with its letters
        3: "The distance is always the key's position minus the query's, ${}$",
        5: "**Distance** ${} = n - m$: the key's position minus the query's.",
    }
    assert {int(chapter_a), int(chapter_b)} == set(signed)
    for form, n in ((form_a, chapter_a), (form_b, chapter_b)):
        assert signed[int(n)].format(form) in chapter(stems[int(n)]), (n, form)
    assert f"signed, as this page's *offset*: ${form_a}$ in chapter {chapter_a} and ${form_b} = n - m$ in chapter" in (
        letters("distance")
    )
    # 3. the logit: this page's logit and score rows; chapter 1's score matrix is the logits, QK^T / sqrt(d)
    logit, here, there = table[2]
    assert logit == "what the softmax reads, usually $q \\cdot k/\\sqrt d$", logit
    assert here == "the *logit*; the *score* is $q \\cdot k$ itself", here
    assert "| the number the softmax reads for one query and key: usually the *score* divided by $\\sqrt d$," in row(
        "logit"
    )
    assert "| the dot product $q \\cdot k$ of one query and one key," in row("score")
    (score_chapter,) = re.findall(r"^the \*score\* in chapter (\d+)$", there)
    c1 = chapter(stems[int(score_chapter)])
    assert "S = \\frac{QK^\\top}{\\sqrt{d}}, $$ where $S$ is the score matrix" in c1
    assert f"| the *logit* itself in chapter {score_chapter}, whose score matrix is" in letters("score")
    # 4. ALiBi's slope: no letter on this page (its two rows write no maths); m in chapter 3, m_h in chapter 6
    slope, here, there = table[3]
    assert (slope, here) == ("ALiBi's fixed number for each head", "its *slope*, with no letter"), table[3]
    assert "a head's fixed positive number" in row("slope (ALiBi)")
    assert "$" not in cells("slope (ALiBi)")[2] and "$" not in cells("attention with linear biases (ALiBi)")[2]
    ((letter_a, chapter_a, letter_b, chapter_b),) = re.findall(
        r"^\$(m|m_h)\$ in chapter (\d+) and \$(m|m_h)\$ in chapter (\d+)$", there
    )
    slope_words = {"m": "with a slope $m$ per head", "m_h": "with a fixed slope $m_h$ for each head"}
    for letter, n in ((letter_a, chapter_a), (letter_b, chapter_b)):
        assert slope_words[letter] in chapter(stems[int(n)]), (letter, n)
    assert f"ALiBi's *slope*, ${letter_a}$ in chapter {chapter_a} and ${letter_b}$ in chapter {chapter_b};" in (
        letters("$m$")
    )


# ---- the fast pair's visible count, the ramp's two shapes, new rows, citations and the Letters table ----------------


def test_fast_pair_row_is_one_definition_and_the_turns_in_l_count_is_in_the_block():
    """The fast pair row holds one definition, "$(L - 1)\\,\\theta_i \\ge 2\\pi$", then one sentence on its trained
    angles, and ends there (read r197: its sentence on the other count, "Asking instead for one turn in $L$ ...", left
    the row; the block's :data:`FAST_PAIR_TWO_COUNTS` says it). The collapsed block "Turns in L
    and the fast pairs' distances", right after the "Longer inputs" table whose rows now hold trained length, turn, fast
    pair and slow pair, opens: "`llama3` and YaRN count a pair's turns in $L$, $L\\theta_i/(2\\pi)$, instead of asking
    whether it is fast." That those two rules read the
    count, and the block's Llama 3.1 pairs, are :func:`test_llama3_and_yarn_count_turns_over_one_position_more`'s; here:
    transformers' `llama3` and `yarn`, given a pair just under the fast-pair test but at one turn in L, sort it by the
    count."""
    assert row("fast pair").endswith(
        # fix pass 266 (read r265 #1, overstated): the row's sentence says how close the trained angles lie
        "$(L - 1)\\,\\theta_i \\ge 2\\pi$. Its trained angles then go all the way round the circle, at most"
        " $\\theta_i$ apart |"
        " {doc}`4 <../notebooks/04_rope>`, {doc}`7 <../notebooks/07_beyond>` |"
    )  # read r186: the gap between those angles, at most theta_i, is the block's; read r197: so is the turns-in-L
    # count's inequality, its boundary case and Llama 3.1's pairs (FAST_PAIR_TWO_COUNTS' test)
    assert "Asking instead" not in page() and "boundary" not in row("fast pair")
    # chapter 7's other sense is the Letters table's "fast" row, the page's place for such clashes: its first column
    # repeats the fast pair row's inequality, its second names chapter 7's YaRN row and `beta_fast`, 32
    # fix pass 275 (read r272a #6, overstated: "pair 0 always" fails with the betas swapped): pair 0 below 32 turns
    # fix pass 286 (read r281a #2, unclear: "more than" here, "at least" on the main line and in the betas row):
    # "at least", the code's non-strict bound (a pair exactly at `beta_fast` turns is kept with `truncate` off, and
    # with it on only up to a float's rounding, as the YaRN edges block says: test_betas_bounds_exactly_at_a_pair_282)
    assert letters("fast") == (
        "| fast | a *fast pair*, one with $(L - 1)\\,\\theta_i \\ge 2\\pi$ | in chapter 7's YaRN row, only the pairs"
        " YaRN keeps: those that turn at least `beta_fast`, 32, times in $L$, and pair 0 even when it turns fewer |"
    )
    assert "$(L - 1)\\,\\theta_i \\ge 2\\pi$" in row("fast pair") and "Chapter 7" not in row("fast pair")
    # the Letters row's second meaning: chapter 7's method table says so in its YaRN row; transformers' `yarn` at its
    # default betas (a config with none set) keeps exactly the pairs that turn at least 32 times in L, in chapter 7's
    # head at L = 4096, and so leaves some fast pairs (the row's inequality) unkept
    assert "| YaRN (`yarn`) | fast pairs kept, slow pairs divided by $s$, a ramp between;" in chapter("07_beyond")
    from transformers.modeling_rope_utils import _compute_yarn_parameters

    assert 'beta_fast = rope_parameters_dict.get("beta_fast") or 32' in inspect.getsource(_compute_yarn_parameters)
    for d, b, L in ((128, 1e4, 4096), (128, 5e5, 8192)):
        theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        yarn = hf_inv_freq(d, rope_type="yarn", rope_theta=b, factor=8.0, original_max_position_embeddings=L).double()
        kept = torch.isclose(yarn, theta, rtol=1e-6, atol=0)
        turns = L * theta / (2 * math.pi)
        assert torch.equal(kept, turns >= int(re.findall(r"`beta_fast`, (\d+), times", letters("fast"))[0])), (d, b, L)
        fast = (L - 1) * theta >= 2 * math.pi
        assert bool((fast & ~kept).any()) and not bool((kept & ~fast).any())
    # fix pass 275 (read r272a #6): "and pair 0 even when it turns fewer": chapter 7's toy head, L = 64 and d = 128,
    # whose pair 0 turns about 10 times in L, fewer than 32; transformers' `yarn` at its default betas keeps it, as
    # chapter 7's block says
    assert "At $L = 64$ and $d = 128$, pair 0 is kept" in " ".join(chapter("07_beyond").split())
    toy_theta = 1e4 ** (-torch.arange(0, 128, 2, dtype=torch.float64) / 128)
    assert 1 < 64 / (2 * math.pi) < 32
    toy = hf_inv_freq(128, rope_type="yarn", rope_theta=1e4, factor=8.0, original_max_position_embeddings=64).double()
    assert abs(float(toy[0] / toy_theta[0]) - 1) < 1e-6 and float(toy[1] / toy_theta[1]) < 1 - 1e-3
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    longer = raw[raw.index("### Terms for longer inputs") : raw.index("### Temperature and query scales")]
    table = longer[longer.index("| English |") : longer.index("<details>")]
    for term in ("trained length | 训练长度", "turn | 圈", "fast pair | 快速对", "slow pair | 慢速对"):
        assert f"\n| {term} |" in table, term
    block = re.sub(r"\s+", " ", longer[longer.index("<details><summary>Turns in L and the fast pairs' distances") :])
    # fix pass 280 (reads r276a #1 and r276b #1): the block opens by saying which count the main line's "over a
    # training input" is, the rows' L - 1, then the rules' count in L
    assert block.index(
        # fix pass 281 (reads r277a #1, #2 and r277b #2): the main line now says "over a training input" for the
        # bounds too; the block says which count each use is
        # fix pass 285 (reads r280a #2 and r280b #1, unclear: one phrase, two counts): the main line's one count is
        # turns in L, the code's; the rows' L - 1 is the block's second count
        # fix pass 286 (reads r281a #1 and r281b #1): the main line now counts as the rows do, over L - 1; the block
        # names the code's count, turns in L, as the one the main line gives the rules' bounds in
        "</summary> The main line and the *fast pair* and *slow pair* rows count turns over training's largest"
        " distance, $L - 1$. The code of `llama3` and YaRN counts every pair's turns in $L$, $L\\theta_i/(2\\pi)$, and"
        " the main line gives their bounds in that count. The two counts sort Llama 3.1's pairs alike:"
    ) < block.index("</details>")
    assert page().count("Turns in L and the fast pairs' distances</summary>") == 1  # one copy of the exact count
    # a head where pair 2 turns once in L = 20 but not over offsets 0 to 19: a bound of 1 turn treats it as "at least
    # once", which the fast-pair test does not
    d, b, L, s = 16, 100.0, 20, 4.0
    theta = b ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    assert L * theta[2] >= 2 * math.pi > (L - 1) * theta[2]
    turns2 = float(L * theta[2] / (2 * math.pi))
    llama3 = hf_llama3(d, b, s, turns2 * (1 - 1e-9), turns2 / 8, L)
    assert torch.isclose(llama3.double()[2], theta[2], rtol=1e-6)  # kept: its count passes the bound


# ---- the worked example's ramped fast pairs, the extension factor, dynamic YaRN, and four more rows -----------------


def test_worked_case_yarn_row_and_what_slowing_the_fastest_pair_does():
    """The worked case's YaRN rows (read r186: YaRN, the commonest rule in current configs, had no row): the collapsed
    worked example's "| *YaRN*, default *betas* | keeps pairs 0 to 18, *ramps* 19 to 34, divides 35 to 63 by 8 | 8 at
    any length in this head |", run in transformers' own `yarn` on Llama 3.1's head at its default betas (a config with
    none set), at two lengths of the declared maximum, as the rule reads none; and the main line's fastest-pair table
    (read r191: the table that ends the main line): PI "divides its frequency by 8, so a key $r$ positions back gets the
    angle of a key $r/8$ back" (read r186: the main line named a cost with no mechanism): transformers' `linear`, Llama
    3.1's `factor`, gives pair 0 at distance r the angle pair 0 had at r/8; `llama3` and YaRN keep it; the fastest pair
    is fast."""
    from transformers.modeling_rope_utils import _compute_yarn_parameters

    ((k0, k1, r0, r1, v0, v1, by, effective),) = re.findall(
        r"\| \*YaRN\*, default \*betas\* \| keeps pairs (\d+) to (\d+), \*ramps\* (\d+) to (\d+), divides (\d+) to"
        # fix pass 264 (read r263 #4): "in this head", checked in test_worked_examples_effective_scale_column
        r" (\d+) by (\d+) \| (\d+) at any length in this head \|",
        block(WE),
    )
    source = inspect.getsource(_compute_yarn_parameters)
    assert 'get("beta_fast") or 32' in source and 'get("beta_slow") or 1' in source
    d, base, L, s = llama31_head()
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    for declared in (int(s * L), 16 * L):
        yarn = hf_inv_freq(
            d,
            max_position_embeddings=declared,
            rope_type="yarn",
            rope_theta=base,
            factor=s,
            original_max_position_embeddings=L,
        ).double()
        divisor = theta / yarn
        kept, ramped, divided = divisor_bands(divisor, s)
        assert kept == list(range(int(k0), int(k1) + 1)), kept
        assert ramped == list(range(int(r0), int(r1) + 1)), ramped
        assert divided == list(range(int(v0), int(v1) + 1)) and float(by) == s == float(effective), divided
        assert bool(((divisor[ramped] > 1) & (divisor[ramped] < s)).all())
    # the main line's fastest-pair table: pair 0 is fast; PI with Llama 3.1's `factor` divides its frequency by 8 and
    # gives it, at each distance r, the angle of a key r/8 back; `llama3` and YaRN keep it
    ((by_pi, over),) = re.findall(
        r"\| \*position interpolation\* \| divides its frequency by (\d+), so a key \$r\$ positions back gets the angle"
        r" of a key \$r/(\d+)\$ back \|",
        page(),
    )
    assert FASTEST_PAIR_LINES in page() and PI_FASTEST_ROW in page() and int(over) == int(by_pi) == s
    assert "| `llama3` | *keeps* it: its frequency is unchanged | " + YARN_FASTEST_ROW in page()
    llama3_0 = hf_llama3(d, base, s, 4.0, 1.0, L).double()[0]
    yarn_0 = hf_inv_freq(d, rope_type="yarn", rope_theta=base, factor=s, original_max_position_embeddings=L).double()[0]
    assert abs(float(llama3_0 / theta[0]) - 1) < 1e-6 and abs(float(yarn_0 / theta[0]) - 1) < 1e-6
    assert int(torch.argmax(theta)) == 0 and (L - 1) * float(theta[0]) >= 2 * math.pi  # a fast pair
    linear = hf_inv_freq(d, rope_type="linear", rope_theta=base, factor=s).double()
    r = torch.arange(1, 2 * L, dtype=torch.float64)
    assert torch.allclose(r * linear[0], (r / int(over)) * theta[0], rtol=1e-7, atol=0)
    assert not torch.allclose(r * linear[0], r * theta[0], rtol=1e-3, atol=0)  # not the angle it gave r itself


def test_worked_example_every_pair_llama3_ramps_is_fast():
    """The bullet of the "Longer inputs" block "In models and code": "A fast pair need not be *kept*: in Llama 3.1,
    pairs 0 to 34 are fast, but `llama3` keeps only pairs 0 to 28 and ramps 29 to 34." (test_summary derives the pair
    numbers); said once, in the block, not on the main line. In Llama 3.1's head (its width, base, L, factor and
    bounds from posenc/book/models.py's copy of its config), transformers' `llama3` ramps some pairs, none of them kept,
    and each passes the fast pair row's test. Fix pass 266 (read r265b #2): the main line says it too, without the
    pair numbers and in other words, "not every fast pair is *kept*"
    (:func:`test_main_line_says_rules_that_keep_the_fastest_pairs_slow_others`)."""
    text = page()
    # fix pass 279 (reads r275a #3 and r275b #2, unclear: the numbers stated three times): the block's bullet gone; the
    # example's main line, :data:`LLAMA_FAST_NOT_KEPT`, is their one statement outside the worked example's table
    assert "A fast pair need not be *kept*" not in text
    # fix pass 286 (reads r281a #5 and r281b #2): the main line's numbers are now the table :data:`LLAMA_PAIRS_TABLE`
    assert "keeps only pairs 0 to 28" not in text and FLAT_PAIRS_TABLE in text
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    d, base, scaling = llama["head_dim"], llama["rope_theta"], llama["rope_scaling"]
    L, s = scaling["original_max_position_embeddings"], scaling["factor"]
    assert (scaling["high_freq_factor"], scaling["low_freq_factor"]) == (4.0, 1.0)
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    divisor = theta / hf_llama3(d, base, s, 4.0, 1.0, L).double()
    ramped = [i for i in range(d // 2) if 1 + 1e-5 < float(divisor[i]) < s * (1 - 1e-5)]
    fast = [i for i in range(d // 2) if (L - 1) * float(theta[i]) >= 2 * math.pi]
    assert ramped and set(ramped) <= set(fast), (ramped, fast)


def test_main_line_example_of_a_fast_pair_that_llama3_does_not_keep():
    """The main line of "Longer inputs", right after :data:`FASTEST_PAIR_LINES`: "In that head, pairs 0 to 34 are fast,
    and `llama3` and YaRN keep only some of them:", then :data:`LLAMA_PAIRS_TABLE`, its pairs by *turns in $L$* and what
    `llama3` and YaRN do to each (fix pass 272, read r269b #3, unclear: the section's hardest sentence had its example
    only in a block). Llama 3.1's head, bounds and `factor` from posenc/book/models.py's copy of its config (a prose
    sync), its scaling rule's name from the same copy; the fast pairs by the fast pair row's inequality; the kept pairs
    those whose frequency transformers' own `llama3` or `yarn` (default betas) leaves unchanged."""
    ((width, trained, fast_0, fast_1, table),) = re.findall(
        # fix pass 279 (reads r275a #3 and r275b #2, unclear: the section's opening carried these numbers before the
        # example that fits them together): right after the example's fastest-pair table, the YaRN row
        re.escape(YARN_FASTEST_ROW) + r"\s+"
        # fix pass 274 (reads r271a #3 and r271b #2, unclear: the head named but described only in a collapsed block)
        r"Llama 3\.1 has heads (\d+) wide, a base of half a million and a trained length of ([\d ]+) tokens\."
        # fix pass 286 (reads r281a #5 and r281b #2, unclear: nine numbers in two sentences, no picture): a lead-in
        # sentence and a table; every cell checked below
        r"\s+In that head, pairs\s+(\d+) to (\d+) are fast, and `llama3` and YaRN keep only some of them:\n\n"
        r"\| pairs \| \*turns in \$L\$\* \| `llama3` \| YaRN \|\n\|---\|---\|---\|---\|\n((?:\|.*\|\n)+)",
        re.sub(r"[ \t]*\n[ \t]*(?!\n|\|)", " ", (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")),
    )
    flat = " ".join(page().split())
    assert YARN_FASTEST_ROW + " " + LLAMA_HEAD + " " + LLAMA_FAST_NOT_KEPT + " " + FLAT_PAIRS_TABLE in flat
    assert flat.index(EXAMPLE) < flat.index(LLAMA_FAST_NOT_KEPT) < flat.index("<summary>Worked example")
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    d, base, scaling = llama["head_dim"], llama["rope_theta"], llama["rope_scaling"]
    assert scaling["rope_type"] == "llama3", scaling
    L, s = scaling["original_max_position_embeddings"], scaling["factor"]
    # fix pass 274 (reads r271a #3 and r271b #2): the head in words, the copy's width, base and trained length (a prose
    # sync with posenc's copy of the config), the same head as the worked example's "width $d = 128$", "base half a
    # million" and "$L = 8192$, Llama 3.1's trained length"
    assert (int(width), 0.5e6, int(trained.replace(" ", ""))) == (d, base, L)  # "half a million", in words
    assert f"width $d = {d}$, so {d // 2} pairs, and base half a million" in block(WE) and base == 0.5e6
    assert f"with $L = {L}$, Llama 3.1's trained length" in block(WE)
    # the trained length row's L, "the input length a model was trained at before any RoPE scaling": the copy's length
    # before its long-context stage, not the file's declared maximum
    assert L == llama["trained_length_before"] < llama["max_position_embeddings"], llama
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND, row("fast pair"))
    fast = [i for i in range(d // 2) if evaluate(inequality, L=L, theta=float(theta[i]))]
    assert fast == list(range(int(fast_0), int(fast_1) + 1)), fast
    turns = L * theta / (2 * math.pi)  # the turns in L row's L / lambda_i
    divisors = {
        "`llama3`": theta / hf_llama3(d, base, s, scaling["high_freq_factor"], scaling["low_freq_factor"], L).double(),
        # YaRN at its default betas, 32 and 1, the "YaRN" of the fastest-pair table
        "YaRN": theta
        / hf_inv_freq(d, rope_type="yarn", rope_theta=base, factor=s, original_max_position_embeddings=L).double(),
    }
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in table.strip().split("\n")]
    covered = []
    for pairs, turns_cell, *actions in rows:
        first, last = map(int, re.fullmatch(r"(\d+) to (\d+)", pairs).groups())
        block_pairs = range(first, last + 1)
        covered += block_pairs
        # the turns cell: "X or more", "X to Y" (at least X, under Y) or "under Y"
        if m := re.fullmatch(r"(\d+) or more", turns_cell):
            low, high = float(m[1]), math.inf
        elif m := re.fullmatch(r"(\d+) to (\d+)", turns_cell):
            low, high = float(m[1]), float(m[2])
        else:
            low, high = 0.0, float(re.fullmatch(r"under (\d+)", turns_cell)[1])
        assert all(low <= float(turns[i]) < high for i in block_pairs), (pairs, turns_cell)
        # the fast pairs are exactly the rows that turn at least once in L: both counts sort the pairs alike
        assert all((i in fast) == (low >= 1) for i in block_pairs), pairs
        for rule, action in zip(divisors, actions, strict=True):
            div = [float(divisors[rule][i]) for i in block_pairs]
            if action == "kept":
                assert all(abs(x - 1) < 1e-5 for x in div), (rule, pairs, div)  # float32 frequencies
            elif action == "ramped":
                assert all(1 + 1e-5 < x < s * (1 - 1e-5) for x in div), (rule, pairs, div)
            else:
                assert int(re.fullmatch(r"divided by (\d+)", action)[1]) == s, action
                assert all(abs(x / s - 1) < 1e-5 for x in div), (rule, pairs, div)
    assert covered == list(range(d // 2)), covered  # every pair, once, in order
    # fix pass 273 (read r270b #2): the ramp blends each pair's unchanged and divided frequencies: transformers'
    # `llama3` gives a pair between its bounds (1 - w) times its frequency over `factor` plus w times its frequency
    source = " ".join(inspect.getsource(transformers.modeling_rope_utils._compute_llama3_parameters).split())
    assert (
        "smoothed_inv_freq = (1 - smooth_factor) * inv_freq_llama / factor + smooth_factor * inv_freq_llama" in source
    )
    # the section's opening glosses *ramp* before this table uses it
    assert flat.index(FASTEST_PAIR_LINES) < flat.index(LLAMA_FAST_NOT_KEPT) < flat.index(row("ramp"))


def test_left_padding_row_shifts_a_padded_rows_positions_without_position_ids():
    """The row "left padding" (fix pass 272, read r269b #8, omission: no row for it): "pad tokens added at the start of
    a batch's shorter inputs; without `position_ids`, a padded row's positions shift up by its pad count", Reading model
    code's "Positions at run time" in the same words; its chapters, 2, 4 and 10, each speak of left padding. Checked
    in transformers 5.24: a tiny Llama given a left-padded batch and its attention mask, but no `position_ids`, hands
    its rotary embedding the same positions for every row, so a row's first real token sits at its pad count, not at 0;
    `generate` counts each row's positions from its first real token, from the attention mask."""
    from transformers.generation import utils as generation_utils

    assert row("left padding").startswith(
        "| left padding | 左补齐 | pad tokens added at the start of a batch's shorter inputs; without `position_ids`,"
        " a padded row's positions shift up by its pad count | {doc}`2 <../notebooks/02_absolute>`, {doc}`4"
        " <../notebooks/04_rope>`, {doc}`10 <../notebooks/10_rope_today>`, {doc}`Reading model code <reading_code>` |"
    )
    for name in ("02_absolute", "04_rope", "10_rope_today"):
        assert re.search(r"[Ll]eft[- ]pad", chapter(name)), name
    torch.manual_seed(0)
    cfg = transformers.LlamaConfig(
        vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2, head_dim=8
    )
    model = transformers.LlamaModel(cfg).eval()
    seen = []
    hook = model.rotary_emb.register_forward_pre_hook(
        lambda module, args, kwargs: seen.append(kwargs.get("position_ids", args[1] if len(args) > 1 else None)),
        with_kwargs=True,
    )
    pads = 3
    ids = torch.randint(1, 32, (2, 7))
    mask = torch.ones_like(ids)
    mask[1, :pads] = 0  # row 1 is left-padded by 3 tokens
    with torch.no_grad():
        model(input_ids=ids, attention_mask=mask)
    hook.remove()
    (positions,) = seen
    row_0, row_1 = positions.expand(2, -1)
    assert torch.equal(row_0, row_1) and int(row_1[pads]) == pads  # the padded row's first real token: at 3, not 0
    counted = mask.long().cumsum(-1) - 1  # generate's count, from each row's first real token
    assert int(counted[1, pads]) == 0 and torch.equal(row_1[pads:] - counted[1, pads:], torch.full((7 - pads,), pads))
    source = inspect.getsource(generation_utils.GenerationMixin._prepare_position_ids_for_generation)
    assert "attention_mask.long().cumsum(-1) - 1" in source


def test_main_line_says_rules_that_keep_the_fastest_pairs_slow_others():
    """The main line, :data:`FASTEST_PAIR_LINES`: "Some rules leave the fastest ones unchanged. They can still slow the
    fast pairs that turn fewest times, so not every fast pair is *kept*." (fix pass 266, read r265b #2, unclear: that
    fast and kept differ was said only in a block; fix pass 268, read r267 #2: "the slower fast pairs" read as a
    contradiction). In Llama 3.1's head (posenc's copy of its config), transformers' `llama3`, with
    Llama 3.1's bounds, and `yarn`, with its default betas, each keep pair 0, the fastest, and divide by more than 1
    some pair that the fast pair row's inequality calls fast; each such pair turns slower than every pair the rule
    keeps, and the fast pairs each rule slows are exactly the fast pairs with the fewest turns in $L - 1$ positions.
    The *kept* row: "a pair whose frequency a RoPE scaling leaves unchanged"."""
    assert FASTEST_PAIR_LINES in page()
    assert row("kept (pair)").startswith(
        "| kept (pair) | 保留 | a pair whose frequency a RoPE scaling leaves unchanged |"
    )
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND, row("fast pair"))
    d, base, L, s = llama31_head()
    bounds = MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    rules = {
        "llama3": hf_llama3(d, base, s, bounds["high_freq_factor"], bounds["low_freq_factor"], L),
        "yarn": hf_inv_freq(d, rope_type="yarn", rope_theta=base, factor=s, original_max_position_embeddings=L),
    }
    fast = torch.tensor([bool(evaluate(inequality, L=L, theta=float(th))) for th in theta])
    assert bool(fast[0]) and not bool(fast.all())
    for name, freqs in rules.items():
        divisor = theta / freqs.double()
        kept = (divisor - 1).abs() < 1e-5  # float32 frequencies
        slowed_fast = fast & (divisor > 1 + 1e-5)
        assert bool(kept[0]) and bool(slowed_fast.any()), name  # keeps the fastest, slows some fast pair
        assert float(theta[slowed_fast].max()) < float(theta[kept].min()), name
        # fix pass 268 (read r267 #2): "the fast pairs that turn fewest times": no fast pair is sped up, and the slowed
        # ones are the last of the fast pairs ranked by their turns over L - 1 positions, most turns first
        assert bool((divisor > 1 - 1e-5).all()), name
        turns = (L - 1) * theta / (2 * math.pi)
        by_turns = sorted((i for i in range(len(theta)) if bool(fast[i])), key=lambda i: -float(turns[i]))
        n_slowed = int(slowed_fast.sum())
        assert {i for i in range(len(theta)) if bool(slowed_fast[i])} == set(by_turns[-n_slowed:]), name
        assert 0 < n_slowed < len(by_turns), (name, n_slowed)  # some fast pairs slowed, some kept
        # fix pass 279 (reads r275a #3 and r275b #2): "Such rules *ramp* the pairs between: each gets a blend of its
        # unchanged and divided frequencies. So a fast pair that turns only a few times can be ramped, not kept": the
        # ramped pairs (divided by more than 1, less than s) lie between the kept and the fully divided ones, and
        # some of them are fast
        # fix pass 280 (reads r276a #2 and r276b #1): the "So a fast pair ..." sentence is now each rule's bound in
        # turns in L, checked in test_main_line_names_each_rules_bound_in_turns_in_l; the ramp's place is still this
        ramped = (divisor > 1 + 1e-5) & (divisor < s * (1 - 1e-5))
        full = (divisor - s).abs() < 1e-5 * s
        assert bool(ramped.any()) and bool((kept | ramped | full).all()), name
        # fix pass 288 (read r283a #1): "Such rules divide the slowest pairs fully": the slowest pair, and every slow
        # pair, divided by s itself
        assert bool(full[-1]) and bool(full[~fast].all()), name
        assert (
            float(theta[kept].min())
            > float(theta[ramped].max())
            > float(theta[ramped].min())
            > float(theta[full].max())
        ), name
        assert bool((ramped & fast).any()), name
    # the section's opening, "Most rules for longer inputs divide these pairs' frequencies" (fix pass 281: the main
    # line's repeat of it, "The rules below divide the slow pairs' frequencies", went): the example's four rules, PI,
    # `llama3`, YaRN and dynamic NTK at its input of 2L (with L as the trained length), each divide every slow pair by
    # more than 1
    slow = ~fast
    below = dict(rules)
    below["linear"] = hf_inv_freq(d, rope_type="linear", rope_theta=base, factor=s)
    below["dynamic"] = hf_inv_freq(
        d, max_position_embeddings=L, seq_len=2 * L, rope_type="dynamic", rope_theta=base, factor=s
    )
    for name, freqs in below.items():
        assert bool((theta[slow] / freqs.double()[slow] > 1 + 1e-3).all()), name
    assert "Most rules for longer inputs divide these pairs' frequencies, so that far keys get angles seen in" in page()
    assert "Some rules leave the fastest pairs *kept*, at their trained frequencies." in FASTEST_PAIR_LINES


def test_main_line_names_each_rules_bound_in_turns_in_l():
    """The main line, :data:`FASTEST_PAIR_LINES`: "`llama3` keeps the pairs that turn at least 4 times in $L$, YaRN
    by default those that turn at least 32 times." (fix pass 288: ", and pair 0 whenever it turns fewer"; fix pass
    285: "in $L$" on the main line; fix pass 281: one count,
    and "at least" for both bounds; the count in L is the block's) (fix pass 280, reads r276a #2 and
    r276b #1: the sentence it replaced, "So a fast pair that turns only a few times can be ramped, not kept", followed
    from nothing). The bounds are the rows': Llama 3.1's `high_freq_factor` and YaRN's default `beta_fast`, as the
    block "In models and code" gives them. Over several heads, transformers' own `llama3` keeps exactly the pairs that
    turn at least `high_freq_factor` times in L; its `yarn` with default betas keeps every pair that turns at least
    `beta_fast` times, and besides them at most pair 0 (the block's "pair 0 is kept whenever it turns fewer"); in
    Llama 3.1's head, exactly those that turn at least 32 times. "At least", not "more than", for both: a pair that
    turns exactly `beta_fast` times is kept by `yarn` (floor of the correction dimension), and one that turns exactly
    `high_freq_factor` times gets `llama3`'s weight 1, checked on heads where those counts are exact."""
    ((high_said, fast_said),) = re.findall(
        # fix pass 287 (read r282b #1): the bounds in the term itself, *turns in $L$*
        # fix pass 288 (read r283b #1): and pair 0 whenever it turns fewer
        # fix pass 289 (reads r284a #2 and r284b #1): YaRN's bound in its own sentence, pair 0 as its code's
        r"`llama3` keeps the pairs with at least (\d+) \*turns in \$L\$\*\. YaRN by default keeps those with at least"
        r" (\d+) and, in its code, pair 0 even below that\.",
        FASTEST_PAIR_LINES,
    )
    # fix pass 281 (reads r277a #1, #2 and r277b #2): "over a training input" is the block's count in L for the bounds
    # fix pass 285 (reads r280a #2 and r280b #1): the main line says "in $L$" itself; the block names the count
    turns_block = block("Turns in L and the fast pairs' distances")
    # fix pass 286 (reads r281a #1 and r281b #1): the main line names the count itself, *turns in $L$*, and the block
    # says the main line gives the rules' bounds in it
    assert (
        "The code of `llama3` and YaRN counts every pair's turns in $L$, $L\\theta_i/(2\\pi)$, and the main line gives"
        " their bounds in that count." in " ".join(turns_block.split())
    )
    # fix pass 287 (read r282b #1 and r282a #3): no second count on the main line; the block names it
    assert "both counts sort Llama 3.1's pairs alike" not in FASTEST_PAIR_LINES
    assert FASTEST_PAIR_LINES in page()
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]
    high, low = llama["high_freq_factor"], llama["low_freq_factor"]
    assert (
        int(high_said) == high
        and "sets `llama3`'s bounds `high_freq_factor` and `low_freq_factor` to 4 and 1" in page()
    )
    assert "YaRN's *betas* are 32 and 1 by default" in page()
    d0, b0, L0, s0 = llama31_head()
    heads = [(d0, b0, L0, s0), (64, 10_000.0, 2048, 4.0), (128, 1_000_000.0, 32_768, 8.0), (32, 10_000.0, 512, 2.0)]
    for d, base, L, s in heads:
        theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        turns = L * theta / (2 * math.pi)
        freqs = {
            "llama3": hf_llama3(d, base, s, high, low, L),
            "yarn": hf_inv_freq(d, rope_type="yarn", rope_theta=base, factor=s, original_max_position_embeddings=L),
        }
        kept = {name: ((theta / f.double()) - 1).abs() < 1e-5 for name, f in freqs.items()}
        assert torch.equal(kept["llama3"], turns >= float(high_said)), (d, base, L)
        beyond = turns >= float(fast_said)  # fix pass 281: "at least"
        assert bool(kept["yarn"][beyond].all()), (d, base, L)
        assert not bool(kept["yarn"][1:][~beyond[1:]].any()), (d, base, L)  # besides them, at most pair 0
        if (d, base, L) == (d0, b0, L0):
            assert torch.equal(kept["yarn"], beyond) and torch.equal(kept["llama3"], turns >= 4)
    # fix pass 288 (read r283b #1): "YaRN by default those with at least 32, and pair 0 whenever it turns fewer".
    # Chapter 8's head (the saved run's width and trained length, posenc's base), with transformers' default betas:
    # pair 0 turns about 10 times in L, fewer than 32, and `yarn` keeps it, with or without `truncate`; so do heads
    # whose pair 0 turns from about 1 to 31 times
    run_config = load_results("extrapolation", check=False)["config"]
    d8, L8 = run_config["model"]["d_model"] // run_config["model"]["n_heads"], run_config["train_length"]
    theta8 = posenc.rope_inv_freq(d8, dtype=torch.float64)
    assert 1 < float(L8 * theta8[0] / (2 * math.pi)) < float(fast_said)  # pair 0: about 10 turns in L
    small_heads = [(d8, 10_000.0, L8)] + [(d8, 10_000.0, L) for L in (8, 32, 100, 190)] + [(64, 500_000.0, 100)]
    for d, base, L in small_heads:
        theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
        assert 1 < float(L * theta[0] / (2 * math.pi)) < float(fast_said), (d, base, L)
        for truncate in (True, False):
            yarn = hf_inv_freq(
                d, rope_type="yarn", rope_theta=base, factor=4.0, original_max_position_embeddings=L, truncate=truncate
            ).double()
            assert abs(float(theta[0] / yarn[0]) - 1) < 1e-5, (d, base, L, truncate)  # pair 0 kept
    # fix pass 281 (reads r277a #2 and r277b #2): at exactly the bound. A head of width 8 and base 16, whose pair i
    # turns 2^(4 - i) times in L = 32 pi; pair 2 turns exactly 4 times there, and exactly 32 times in L = 256 pi
    theta = 16.0 ** (-torch.arange(0, 8, 2, dtype=torch.float64) / 8)
    exact_4, exact_32 = 32 * math.pi, 256 * math.pi
    assert float(exact_4 * theta[2] / (2 * math.pi)) == 4.0 == float(high_said)
    assert float(exact_32 * theta[2] / (2 * math.pi)) == 32.0 == float(fast_said)
    yarn_exact = hf_inv_freq(
        8,
        max_position_embeddings=int(4 * exact_32) + 1,
        rope_type="yarn",
        rope_theta=16.0,
        factor=4.0,
        original_max_position_embeddings=exact_32,
    ).double()
    assert abs(float(theta[2] / yarn_exact[2]) - 1) < 1e-6 and float(theta[3] / yarn_exact[3]) > 1.01, yarn_exact
    llama_exact = hf_llama3(8, 16.0, 4.0, high, low, exact_4).double()
    assert abs(float(theta[2] / llama_exact[2]) - 1) < 1e-6 and float(theta[3] / llama_exact[3]) > 1.01, llama_exact


def test_extension_factor_row_pi_divides_by_s_and_the_others_by_at_most_s():
    """The row "extension factor": "$s$, a configuration's `factor`, for the rules with one factor: PI divides every
    frequency by $s$", and the Longer-inputs block's "NTK-aware scaling, `llama3` and YaRN divide no frequency by more
    than the *extension factor*, but *dynamic NTK* can. *LongRoPE* instead sets each pair's divisor from a searched
    list" and "The
    *extension factor* sits
    in a configuration's `rope_scaling`, which transformers 5 reads into `rope_parameters`". Swept over head widths,
    bases, trained lengths and factors: PI's divisor is s for every pair;
    NTK-aware's base b s^(d/(d-2)), transformers' `llama3` (bounds 4 and 1) and `yarn` (its default betas) give every
    pair a divisor from 1 to s, and s itself for some setting (so "no frequency by more" is not "less"). "but
    *dynamic NTK* can": transformers' `dynamic` divides the slowest pair by more than s at 2L (9 with s = 8, the worked
    example's), on two heads."""
    assert cells("extension factor")[2] == (
        "$s$, a configuration's `factor`, for the rules with one factor: PI divides every frequency by $s$"
    )
    (dyn_word,) = re.findall(
        r"- NTK-aware scaling, `llama3` and YaRN divide no frequency by more than the \*extension factor\*,"
        r" (but \*dynamic NTK\* can|and nor does \*dynamic NTK\*)\. \*LongRoPE\* instead sets each pair's divisor from"
        r" a searched list\.",
        models_block("### Terms for longer inputs"),
    )
    # "*LongRoPE* instead sets each pair's divisor from a searched list": transformers' `longrope` divides pair i by
    # entry i of `long_factor` (or `short_factor`), whatever those entries are; here a list with entries above `factor`
    d, b, L = 8, 10_000.0, 64
    listed = [1.0, 3.0, 20.0, 50.0]
    got = hf_inv_freq(
        d,
        max_position_embeddings=4 * L,
        rope_type="longrope",
        rope_theta=b,
        factor=4.0,
        original_max_position_embeddings=L,
        long_factor=listed,
        short_factor=listed,
    )
    divisors = posenc.rope_inv_freq(d, b, dtype=torch.float64) / got.double()
    assert torch.allclose(divisors, torch.tensor(listed, dtype=torch.float64), rtol=1e-5), divisors
    for d, b, L in ((128, 500_000.0, 8192), (128, 10_000.0, 4096)):
        theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
        dyn = hf_inv_freq(d, max_position_embeddings=L, seq_len=2 * L, rope_type="dynamic", rope_theta=b, factor=8.0)
        most = float((theta / dyn.double()).max())
        assert (most > 8.0 * (1 + 1e-3)) == dyn_word.startswith("but"), (d, b, most)  # 9 > s = 8
    assert (
        "- The *extension factor* sits in a configuration's `rope_scaling`, which transformers 5 reads into"
        " `rope_parameters`, beside the rule's name, `rope_type`: see {ref}`Reading model code <glossary-fields>`."
        in models_block("### Terms for longer inputs")
    )
    read = transformers.LlamaConfig(rope_scaling={"rope_type": "linear", "factor": 4.0})
    assert read.rope_parameters["factor"] == 4.0  # transformers 5 reads `rope_scaling` into `rope_parameters`
    assert read.rope_parameters["rope_type"] == "linear"  # beside the rule's name
    fields = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8").split("(glossary-fields)=\n")[1]
    assert "\n| `rope_type` | the scaling rule," in fields.split("\n(")[0]  # the link's section has the field
    # "`rope_scaling`": the entry that holds `factor` in Llama 3.1's config (posenc/book/models.py's copy, and chapter
    # 7's words)
    assert MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]["factor"] == 8.0
    assert "The Llama 3.1 configurations carry the same rule in their `rope_scaling` entry" in chapter("07_beyond")
    reached = set()
    for d in (16, 64, 128):
        for b in (1e4, 5e5):
            theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
            for L in (64, 4096, 65536):
                for s in (2.0, 8.0, 32.0):
                    pi = hf_inv_freq(d, rope_type="linear", rope_theta=b, factor=s).double()
                    assert torch.allclose(theta / pi, torch.full_like(theta, s), rtol=1e-5), (d, b, L, s)
                    others = {
                        "ntk-aware": posenc.rope_inv_freq(d, b * s ** (d / (d - 2)), dtype=torch.float64),
                        "llama3": hf_llama3(d, b, s, 4.0, 1.0, L).double(),
                        "yarn": hf_inv_freq(
                            d, rope_type="yarn", rope_theta=b, factor=s, original_max_position_embeddings=L
                        ).double(),
                    }
                    for name, freqs in others.items():
                        ratio = theta / freqs
                        assert bool(((ratio >= 1 - 1e-5) & (ratio <= s * (1 + 1e-5))).all()), (name, d, b, L, s)
                        if torch.isclose(ratio.max(), torch.tensor(s, dtype=ratio.dtype), rtol=1e-5):
                            reached.add(name)
    assert reached == {"ntk-aware", "llama3", "yarn"}, reached


def test_dynamic_yarn_is_yarn_with_the_stretch_as_its_factor():
    """The row "dynamic YaRN": "YaRN with the current input's *stretch* as its `factor`": chapter 8's run gives YaRN,
    for an input of n tokens, the factor max(n / L, 1) (posenc's passkey experiment, and chapter 7's name for it).
    Its effective factor is then the stretch only under the block's condition: with d = 128, b = 10^4 and L = 65 536
    the slowest pair turns about 1.2 times in L, and YaRN with factor 2 divides it by less than 2."""
    assert "| YaRN with the current input's *stretch* as its `factor` |" in row("dynamic YaRN")
    from posenc.experiments import passkey

    assert "YaRN with factor ``max(n / L, 1)`` for an input of ``n`` tokens" in re.sub(
        r"\s+", " ", inspect.getsource(passkey.run_extrapolation)
    )
    assert "chapter 8 calls it dynamic YaRN" in chapter("07_beyond")
    d, b, L = 128, 1e4, 65536
    theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
    assert 1 < L * float(theta[-1]) / (2 * math.pi) < 1.3
    yarn = hf_inv_freq(d, rope_type="yarn", rope_theta=b, factor=2.0, original_max_position_embeddings=L).double()
    assert 1.8 < float(theta[-1] / yarn[-1]) < 1.9  # below the stretch 2: why the row names the factor, not the scale


def test_mrope_gives_time_height_and_width_each_a_run_of_pairs():
    """The M-RoPE row: "RoPE with three position axes, time, height and width, each given a run of pairs (Qwen2-VL)":
    transformers' Qwen2-VL rotary embedding, given a different position on each axis, turns each pair by one axis's
    position; the axes own contiguous runs of pairs in the order time, height, width (its `mrope_section`)."""
    assert (
        "RoPE with three position axes, time, height and width, each given a run of pairs, as in Qwen2-VL;"
        # fix pass 272 (read r269b #8, omission: the config field was not named): `mrope_section`, which a config file
        # sets in `rope_scaling` and transformers 5.24 keeps in `rope_parameters`; each axis's count checked below
        " the config field `mrope_section` gives each axis's number of pairs |" in row("M-RoPE (multimodal RoPE)")
    )
    from_file = transformers.Qwen2VLTextConfig(
        hidden_size=64, num_attention_heads=2, rope_scaling={"type": "mrope", "mrope_section": [4, 6, 6]}
    )
    assert from_file.rope_parameters["mrope_section"] == [4, 6, 6]
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding

    d, section = 32, [4, 6, 6]
    cfg = transformers.Qwen2VLTextConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": 100.0, "mrope_section": section},
    )
    rope = Qwen2VLRotaryEmbedding(cfg)
    assert rope.inv_freq.numel() == d // 2 == sum(section)
    positions = torch.tensor([[[3]], [[5]], [[7]]])  # time, height, width of one token
    cos, sin = rope(torch.zeros(1, 1, d), positions)
    angle = torch.atan2(sin[0, 0, : d // 2], cos[0, 0, : d // 2]).double()
    axes = []
    for i, t in enumerate(rope.inv_freq.double()):
        match = [
            a
            for a, p in enumerate((3, 5, 7))
            if math.isclose(math.remainder(p * t - angle[i], 2 * math.pi), 0, abs_tol=1e-4)
        ]
        assert len(match) == 1, (i, match)
        axes += match
    assert axes == [0] * section[0] + [1] * section[1] + [2] * section[2], axes


def test_learned_sink_is_one_logit_per_head_with_no_value():
    """The learned sink row: "one extra learned logit with no value, per head as in gpt-oss, so a head can put most
    of its weight on no token": gpt-oss's `sinks` has one entry per attention head, and its eager attention appends
    it as one more logit,
    then drops its weight, so the weights on the keys sum to less than 1, and a large sink drives them, and the
    output, towards zero."""
    assert "per head as in gpt-oss, so a head can put most of its weight on no token |" in row("learned sink")
    from transformers.models.gpt_oss import modeling_gpt_oss

    cfg = transformers.GptOssConfig(
        hidden_size=32,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=8,
        num_hidden_layers=1,
        num_local_experts=2,
        intermediate_size=16,
    )
    attention = modeling_gpt_oss.GptOssAttention(cfg, layer_idx=0)
    assert attention.sinks.shape == (cfg.num_attention_heads,)
    torch.manual_seed(0)
    q, k, v = (torch.randn(1, n, 5, 8) for n in (4, 2, 2))
    for sink, most in ((0.0, 1 - 1e-3), (30.0, 1e-9)):
        with torch.no_grad():
            attention.sinks.fill_(sink)
        out, weights = modeling_gpt_oss.eager_attention_forward(attention, q, k, v, None, 8**-0.5)
        assert weights.shape[-1] == 5 and bool((weights.sum(-1) < most).all()), sink  # no column for the sink
        if sink > 0:
            assert out.abs().max() < 1e-6  # most of its weight, here nearly all, on no token


def test_shaw_adds_learned_vectors_per_clipped_offset_to_the_key_and_the_value():
    """The Shaw row: "learned vectors per clipped offset, added to the key and the value": posenc's Shaw attention
    equals plain attention with key k_j + R^K[clip(j - i)] and value v_j + R^V[clip(j - i)], the tables indexed by the
    offset clipped to [-k, k]; offsets beyond k share the last vector."""
    assert "| learned vectors per clipped offset, added to the key and the value |" in row(
        "Shaw's relative position vectors"
    )
    torch.manual_seed(0)
    n, d, clip = 7, 4, 2
    q, k, v = (torch.randn(n, d, dtype=torch.float64) for _ in range(3))
    rel_k, rel_v = (torch.randn(2 * clip + 1, d, dtype=torch.float64) for _ in range(2))
    out = posenc.shaw_attention(q, k, v, rel_k, rel_v, causal=False)
    offset = torch.arange(n)[None, :] - torch.arange(n)[:, None]  # key - query
    label = offset.clamp(-clip, clip) + clip
    keys, values = k[None] + rel_k[label], v[None] + rel_v[label]  # [query, key, d]
    weights = torch.softmax((q[:, None, :] * keys).sum(-1) / d**0.5, dim=-1)
    assert torch.allclose(out, (weights[..., None] * values).sum(1), atol=1e-12)
    moved = posenc.shaw_attention(q, k, v, rel_k, rel_v.flip(0), causal=False)
    assert not torch.allclose(out, moved)  # the value's vectors count, and depend on the offset


def _longrope_llama_config(d, base, L, short, long):
    """A small Llama config with transformers' `longrope`: head width d, `factor` 4, trained length L."""
    return transformers.LlamaConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        head_dim=d,
        max_position_embeddings=4 * L,
        rope_parameters={
            "rope_type": "longrope",
            "rope_theta": base,
            "factor": 4.0,
            "original_max_position_embeddings": L,
            "short_factor": short,
            "long_factor": long,
        },
    )


def test_longrope_uses_one_list_for_short_inputs_and_one_for_long():
    """The LongRoPE row: "one list for short inputs, one for long", and the block "In models and code": "*LongRoPE*
    reads the input's length only to choose its list, so it is *dynamic*": transformers' `longrope` divides the
    frequencies by `short_factor` for an input up to
    `original_max_position_embeddings` and by `long_factor` past it, and two inputs past it get the same list."""
    assert "| RoPE with a searched factor for each pair: one list for short inputs, one for long |" in (row("LongRoPE"))
    assert "- *LongRoPE* reads the input's length only to choose its list, so it is *dynamic*. -" in models_block(
        "### Terms for longer inputs"
    )
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    d, base, L = 16, 100.0, 16
    short = [1.0 + 0.1 * i for i in range(d // 2)]
    long = [2.0 + i for i in range(d // 2)]
    cfg = _longrope_llama_config(d, base, L, short, long)
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    for seq_len, chosen in ((L // 2, short), (L, short), (2 * L, long), (4 * L, long)):
        freqs, _ = ROPE_INIT_FUNCTIONS["longrope"](cfg, "cpu", seq_len=seq_len)
        assert torch.allclose(freqs.double(), theta / torch.tensor(chosen, dtype=torch.float64), rtol=1e-5), seq_len


def test_ramp_row_llama3_linear_in_turns_yarn_linear_in_the_pair_index():
    """The ramp row ends at its definition, "which get a blend of the two frequencies"; the block "Where papers and code
    differ" holds the rest: "YaRN's paper makes the blend linear in a pair's turns in $L$; its released code makes it
    linear in the pair index, and so in the log of the turns. In transformers, `llama3` ramps the blend linearly in
    turns in $L$, YaRN linearly in the pair index": in
    transformers, the share of the kept frequency in each ramped pair's blend is (turns - low)/(high - low) for
    `llama3`, which is not linear in the index, and falls by the same step from pair to pair for `yarn`, which is not
    linear in turns but is linear in their log. Llama 3.1's head and bounds; YaRN's defaults."""
    assert row("ramp").startswith(
        "| ramp | 斜坡 | in *NTK-by-parts*, YaRN and `llama3`, the pairs between those kept and those divided by"
        " $s$, which get a blend of the two frequencies |"
    )
    assert (
        "| *ramp* | YaRN's paper makes the blend linear in a pair's turns in $L$; its released code makes it linear in"
        " the pair index, and so in the log of the turns. In transformers, `llama3` ramps the blend linearly in turns"
        " in $L$, YaRN linearly in the pair index |" == note("ramp")
    )
    # the paper's blend, as chapter 7 quotes it: gamma(r), linear in the turns r; the book follows the released code
    c7 = chapter("07_beyond")
    assert "The paper writes the blend as a function of the turns, $\\gamma(r) = (r - \\beta_{\\text{slow}})" in c7
    assert "This book follows the code, which the released YaRN checkpoints run with." in c7
    d, b, L, s = llama31_head()
    theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
    turns = L * theta / (2 * math.pi)

    def kept_share(freqs):  # 1 where a pair is kept, 0 where it is divided by s
        return (freqs.double() / theta - 1 / s) / (1 - 1 / s)

    llama3 = kept_share(hf_llama3(d, b, s, 4.0, 1.0, L))
    ramped = ((llama3 > 1e-6) & (llama3 < 1 - 1e-6)).nonzero().flatten()
    assert ramped.tolist() == list(range(29, 35)), ramped
    assert torch.allclose(llama3[ramped], (turns[ramped] - 1) / 3, atol=1e-5, rtol=0)  # linear in turns
    assert llama3[ramped].diff().diff().abs().max() > 1e-2  # not linear in the index
    yarn = kept_share(hf_inv_freq(d, rope_type="yarn", rope_theta=b, factor=s, original_max_position_embeddings=L))
    ramped = ((yarn > 1e-6) & (yarn < 1 - 1e-6)).nonzero().flatten()
    steps = yarn[ramped].diff()
    assert len(ramped) > 5 and torch.allclose(steps, steps[:1].expand_as(steps), atol=1e-5, rtol=0)  # linear in index
    assert not torch.allclose(yarn[ramped], (turns[ramped] - 1) / (32 - 1), atol=1e-2)  # not linear in turns
    # "and so in the log of the turns": over the ramped pairs the share is an affine function of log(turns)
    logs = turns[ramped].log()
    design = torch.stack([logs, torch.ones_like(logs)], 1)
    fit = torch.linalg.lstsq(design, yarn[ramped].unsqueeze(1)).solution
    assert torch.allclose(design @ fit, yarn[ramped].unsqueeze(1), atol=1e-5, rtol=0)
    # the paper's form, linear in turns, as chapter 7 quotes it (its gamma(r)); transformers' yarn follows the code
    assert "The authors' released code, Hugging Face's `_compute_yarn_parameters` and `posenc` ramp linearly" in (
        " ".join(c7.split())
    )


def test_dual_chunk_attention_row_field_transformers_never_reads():
    """The block "Where papers and code differ", its DCA row: "Qwen2.5's 1M-token models ask for it with
    `dual_chunk_attention_config`, which transformers 5.24 never reads", as chapter 10 says ("Transformers 5.24 never
    reads that field"): the version is chapter 10's, and, where the installed transformers is that version, none of its
    files names the field. Another installed version skips the search: it cannot test a claim about 5.24."""
    (version,) = re.findall(
        r"ask for it with `dual_chunk_attention_config`, which transformers (\d+\.\d+) never reads \|",
        note("Dual Chunk Attention (DCA)"),
    )
    assert "so that no distance leaves the trained range |" in row("Dual Chunk Attention (DCA)")  # its definition
    ch10 = chapter("10_rope_today")
    assert "`dual_chunk_attention_config` asks for Dual Chunk Attention" in ch10
    assert "which remaps positions chunk by chunk so that no distance leaves the trained range" in ch10
    assert f"Transformers {version} never reads that field" in ch10
    if not transformers.__version__.startswith(f"{version}."):
        pytest.skip(f"transformers {transformers.__version__} installed, the page names {version}")
    package = Path(transformers.__file__).parent
    hits = [p for p in package.rglob("*.py") if "dual_chunk" in p.read_text(encoding="utf-8", errors="ignore")]
    assert not hits, hits[:3]


def test_smollm3_drops_rope_from_every_fourth_layer():
    """The Attention block "In models and code": "SmolLM3, like Llama 4's *iRoPE*, drops RoPE from every fourth layer":
    transformers' SmolLM3Config default, read as its attention reads it (1: RoPE, 0: none)."""
    from transformers.models.smollm3 import modeling_smollm3

    assert "- SmolLM3, like Llama 4's *iRoPE*, drops RoPE from every fourth layer." in models_block(
        "## Attention, kernels and models"
    )
    assert "SmolLM3" not in row("iRoPE")
    assert "self.use_rope = config.no_rope_layers[layer_idx]" in inspect.getsource(
        modeling_smollm3.SmolLM3Attention.__init__
    )
    cfg = transformers.SmolLM3Config(num_hidden_layers=36)
    assert [i for i, r in enumerate(cfg.no_rope_layers) if not r] == list(range(3, 36, 4)), cfg.no_rope_layers


def test_gemma_2_soft_capping_bounds_the_logits():
    """The Attention section's block "In models and code" (moved there from the length-extension section "Temperature
    and query scales", where the row pointed): "Gemma 2 sets the bound of its *logit soft-capping* by
    `attn_logit_softcapping`, 50 by default in transformers", and the row "logit soft-capping", the one place the
    formula is given, "replacing each logit $x$ by $c \\tanh(x/c)$, which keeps it between $-c$ and $c$": the default,
    and Gemma 2's eager attention run on logits with and without the cap: its softmax weights, which fix its capped
    logits up to one constant per query, spread them less than 2c apart, while the raw logits spread further."""
    from transformers.models.gemma2 import modeling_gemma2

    (cap,) = re.findall(
        r"- Gemma 2 sets the bound of its \*logit soft-capping\* by `attn_logit_softcapping`, (\d+) by default in"
        r" transformers\.",
        page(),
    )
    assert transformers.Gemma2Config().attn_logit_softcapping == float(cap)
    # the row "logit soft-capping": "replacing each logit $x$ by $c \\tanh(x/c)$, which keeps it between $-c$ and $c$,
    # as Gemma 2 does", the page's one statement of the formula (the block names the term, not the formula again),
    # which the run below checks
    ((formula, low, high),) = re.findall(
        r"^\| logit soft-capping \| logit 软上限 \| replacing each logit \$x\$ by \$(c \\tanh\(x/c\))\$, which keeps it"
        r" between \$(-c)\$ and \$(c)\$, as Gemma 2 does \| not in the chapters \|",
        row("logit soft-capping"),
    )
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):  # "not in the chapters"
        text = notebook.read_text(encoding="utf-8").lower()
        assert "soft-cap" not in text and "softcap" not in text, notebook.name
    attention = models_block("## Attention, kernels and models")  # "this section's block"
    assert "- Gemma 2 sets the bound of its *logit soft-capping* by `attn_logit_softcapping`" in attention
    assert "tanh" not in attention and page().count("\\tanh") == 1  # the formula in the row alone
    assert "query_pre_attn_scalar" in attention and "<glossary-scales>" not in row("logit soft-capping")
    scales = block("Other models' query and logit scales")
    assert "Gemma" not in scales and "soft-cap" not in scales  # no longer in the length-extension section
    assert f"replacing each logit $x$ by ${formula}$" in page() and (low, high) == ("-c", "c")
    module = type("M", (), {"training": False, "num_key_value_groups": 1})()
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, 5, 4, generator=g, dtype=torch.float64) * 20 for _ in range(3))
    for c in (float(cap), 3.0):
        _, weights = modeling_gemma2.eager_attention_forward(module, q, k, v, None, scaling=1.0, softcap=c)
        logits = q @ k.transpose(-1, -2)
        assert torch.allclose(weights, torch.softmax(c * torch.tanh(logits / c), -1), atol=1e-12)
        # "keeps it between -c and c", read from Gemma 2's code, not from the formula: log w_ij - log w_ik is the
        # difference of query i's capped logits, so their spread, max minus min, must stay below 2c (to 0.1 %: Gemma's
        # softmax runs in float32, whose weights near e^-100 are subnormal and keep few digits)
        spread = weights.log().amax(-1) - weights.log().amin(-1)
        assert (logits.amax(-1) - logits.amin(-1)).max() > 2 * c and bool((spread < 2 * c * 1.001).all()), (c, spread)


def test_kv_cache_and_qk_norm_rows_name_the_right_models():
    """The Core block: "With RoPE, a KV cache usually stores the keys after rotation": transformers' Llama rotates,
    then caches. StreamingLLM's unrotated keys are said once, in the Attention block (chapter 10's "StreamingLLM caches
    keys unrotated"; its row holds the definition alone, r177), and the Core block does not repeat it. The QK-norm
    row: "a normalisation of the queries and keys, applied before or after RoPE rotates them, depending on the model"
    (both orders occur in the installed transformers, counted below; the counts are the block's, with its version),
    and the Attention block:
    "Qwen3, OLMo 2 and Gemma 3 use a *QK-norm* before the rotation; Llama 4 Scout's RoPE layers normalise after it":
    their transformers attention modules have query and key norms, each applied before the rotation in the forward
    pass, Llama 4's after it, and Qwen2's has none; the block's counts: a search of the installed transformers' model
    folders for forward passes that call a query norm of the usual names and rotate, by which comes first, for the
    pinned transformers version. The
    Attention block's rolling cache: "Chapter 10's *rolling KV cache* spares the
    *attention sinks*", chapter 10's words."""
    from transformers.models.llama import modeling_llama
    from transformers.models.olmo2 import modeling_olmo2
    from transformers.models.qwen2 import modeling_qwen2
    from transformers.models.qwen3 import modeling_qwen3

    assert "- With RoPE, a KV cache usually stores the keys after rotation." in models_block("## Core terms")
    assert "StreamingLLM" not in models_block("## Core terms")
    assert "caches keys unrotated" in models_block("## Attention, kernels and models")
    assert page().count("caches keys unrotated") == 1 and "caches keys unrotated" not in row("StreamingLLM")
    assert "StreamingLLM" not in row("key/value cache (KV cache)")
    assert "StreamingLLM caches keys unrotated and rotates them by their current slot." in chapter("10_rope_today")
    forward = inspect.getsource(modeling_llama.LlamaAttention.forward)
    assert forward.index("apply_rotary_pos_emb(") < forward.index("cache.update(")
    attention_block = models_block("## Attention, kernels and models")
    assert (
        "| a normalisation of the queries and keys, applied before or after RoPE rotates them, depending on the"
        " model |" in row("QK-norm")
    )
    assert "most" not in row("QK-norm") and "transformers" not in row("QK-norm")  # the version-bound count: block's
    # "OLMo 2 normalises each whole projection, all heads at once; Qwen3 and Gemma 3 normalise each head."
    # fix pass 264 (read r263 #6, overstated: "most" was a count the page did not give): the two counts of the search
    # below, narrowed to what it checks, a search for the usual names (it misses a folder whose query norm has another
    # name, such as DeepSeek-V4's `q_b_norm`)
    # fix pass 265 (read r264 #4, unclear: "67 ... before ... and 7 ... after" could not be reproduced; another
    # reader's search of the names got 66 and 7, with gemma4 in both sets): the block names the search, each forward
    # pass's first query-norm call against its first rotation, gives the short "after" list exactly and the long
    # "before" one as "over 60"
    # fix pass 267 (reads r266b #5 and r266, unclear: "a query norm of the usual names" left the search, so the 7,
    # unreproducible): the counts first, then the search in full, the names it looks for and the rotation it compares
    # with; the names and the rotation's two strings are read from that sentence and run below
    ((after, over, hunyuan, after_again, searched, rotations),) = re.findall(
        r" it\. In transformers 5\.24, a search of the model folders' forward passes finds (\d+) folders that normalise"
        # fix pass 278 (read r275a #5, overstated: "7 folders" read as 7 designs; three are HunYuan's): Llama 4's
        # among them, and the count is of folders, not model families, three of them HunYuan's (checked below)
        r" the queries after the rotation, Llama 4's among them, and over (\d+) that do so before it\. It counts"
        r" folders, not model families: (\w+) of the (\d+) are HunYuan's\."
        r" In each `forward` method of the `modeling_\*\.py` files, it compares the first call of"
        r" ((?:`self\.\w+`(?:, | or )?)+)"
        r" with the first occurrence of ((?:`[\w(]+`(?: or )?)+)\. OLMo 2"
        r" normalises each whole projection, all heads at once; Qwen3 and Gemma 3 normalise each head\.",
        attention_block,
    )
    assert (
        "- Qwen3, OLMo 2 and Gemma 3 use a *QK-norm* before the rotation; Llama 4 Scout's RoPE layers normalise after"
        " it." in attention_block
    )
    assert "- Chapter 10's *rolling KV cache* spares the *attention sinks*." in attention_block
    c10 = chapter("10_rope_today")
    assert "StreamingLLM rotates each cached key by its current cache slot." in c10
    assert "It keeps a window of recent tokens and the first few, its *sinks*, which models attend to heavily." in c10
    from transformers.models.gemma3 import modeling_gemma3

    for module in (modeling_qwen3.Qwen3Attention, modeling_olmo2.Olmo2Attention, modeling_gemma3.Gemma3Attention):
        init = inspect.getsource(module.__init__)
        assert "self.q_norm" in init and "self.k_norm" in init, module
        forward = inspect.getsource(module.forward)
        rotated = forward.index("apply_rotary_pos_emb(")
        assert forward.index("self.q_norm(") < rotated and forward.index("self.k_norm(") < rotated, module
    tiny = {"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 8, "hidden_size": 32}
    widths = {}
    for name, config_class, attention in (
        ("olmo2", transformers.Olmo2Config, modeling_olmo2.Olmo2Attention),
        ("qwen3", transformers.Qwen3Config, modeling_qwen3.Qwen3Attention),
        ("gemma3", transformers.Gemma3TextConfig, modeling_gemma3.Gemma3Attention),
    ):
        layer = attention(config_class(**tiny), layer_idx=0)
        widths[name] = (layer.q_norm.weight.shape[0], layer.k_norm.weight.shape[0])
    assert widths == {"olmo2": (32, 16), "qwen3": (8, 8), "gemma3": (8, 8)}, widths  # all heads vs one head
    assert "q_norm" not in inspect.getsource(modeling_qwen2.Qwen2Attention.__init__)
    from transformers.models.llama4 import modeling_llama4

    forward = inspect.getsource(modeling_llama4.Llama4TextAttention.forward)
    assert "self.qk_norm" in forward and forward.index("apply_rotary_emb(") < forward.index("self.qk_norm("), forward
    # the row's "before or after ..., depending on the model" and the block's search: every forward pass of the
    # installed transformers' model files that calls a query norm of the usual names and rotates, sorted by which
    # comes first
    order = {"before": set(), "after": set()}
    names = ["q_norm", "query_norm", "qk_norm", "q_layernorm", "query_layernorm", "q_layer_norm"]
    assert re.findall(r"`self\.(\w+)`", searched) == names, searched  # the block names the search's list
    assert re.findall(r"`([\w(]+)`", rotations) == ["apply_rotary", "rotary_emb("], rotations  # and the rotation's
    for path in sorted((Path(transformers.__file__).parent / "models").glob("*/modeling_*.py")):
        source = path.read_text(encoding="utf-8")
        for method in re.finditer(r"\n    def forward\(.*?(?=\n    def |\nclass |\Z)", source, flags=re.S):
            body = method.group(0)
            rotate = re.search(r"apply_rotary|rotary_emb\(", body)
            # the usual query-norm names (HunYuan's query_layernorm, IDEFICS's q_layer_norm among them; a narrower list
            # would miss HunYuan's three folders); a rarer name, such as DeepSeek-V4's q_b_norm, is not searched, so
            # the page says "a search ... for the usual query-norm names"
            norm = re.search(rf"self\.(?:{'|'.join(names)})\(", body)
            if rotate and norm:
                order["before" if norm.start() < rotate.start() else "after"].add(path.parent.name)
    assert {"qwen3", "olmo2", "gemma3"} <= order["before"] and "llama4" in order["after"], order  # both orders
    # the block's counts for transformers 5.24: the folders whose norm comes first and those where it comes after,
    # with the two named families among the latter
    (version,) = re.findall(r"In transformers ([\d.]+), a search of the model folders", attention_block)
    assert transformers.__version__.startswith(version + "."), transformers.__version__
    # a folder whose forward passes differ would land in both sets: it counts as one that normalises after the
    # rotation, and the "before" count leaves it out, so the two counts never share a folder
    only_before = order["before"] - order["after"]
    assert int(after) == len(order["after"]) and len(only_before) > int(over), order
    assert {"llama4", "hunyuan_v1_dense", "hunyuan_v1_moe"} <= order["after"], order  # "Llama 4's among them"
    # "three of the 7 are HunYuan's": the folders after the rotation whose name starts with hunyuan
    assert after_again == after and {"two": 2, "three": 3, "four": 4}[hunyuan] == sum(
        name.startswith("hunyuan") for name in order["after"]
    ), order


def test_interpolation_row_keeps_the_angles_inside_the_trained_range():
    """The interpolation row: "dividing frequencies so that a longer input's angles stay inside the range training
    showed; running past it unchanged is *extrapolation*". Chapter 7's words, "interpolate the slow ones" and "Plain
    extrapolation goes beyond the trained range"; and the computation: for a head like Llama 3.1's at 2L, every
    angle of position interpolation with Llama 3.1's `factor` 8 lies within the largest trained angle of its pair, while
    unchanged frequencies put every slow pair's largest angle past its trained one."""
    assert row("interpolation").startswith(
        "| interpolation | 插值 | dividing frequencies so that a longer input's angles stay inside the range training"
        " showed; running past it unchanged is *extrapolation* |"
    )
    c7 = chapter("07_beyond")
    assert "interpolate the slow ones" in c7 and "Plain extrapolation goes beyond the trained range" in c7
    d, base, L = 128, 500_000.0, 8192
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    trained = (L - 1) * theta
    slow = trained < 2 * math.pi
    assert slow.any()
    assert bool(((2 * L - 1) * theta / 8 <= trained).all())  # interpolated by the `factor` 8: inside, every pair
    assert bool(((2 * L - 1) * theta > trained)[slow].all())  # unchanged: past it, every slow pair


NAMED_IN_WORDS = {("Shazeer", "2019"): "One Write-Head is All You Need"}  # MQA's paper, in the GQA row; not in the bib


def test_citations_name_an_entry_of_the_bibliography():
    """Every "Author et al. YEAR", "Author and Author YEAR" or "Author YEAR" citation in the page's parentheses names
    an entry of references.bib whose first author has that surname and whose year is that year, except the papers of
    :data:`NAMED_IN_WORDS`, which the bib lacks (checked: each title is absent from it)."""
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    entries = []
    for entry in re.split(r"\n@", bib):
        author = re.search(r"author\s*=\s*\{\{?([^,}]+)", entry)
        year = re.search(r"year\s*=\s*\{(\d{4})\}", entry)
        if author and year:
            entries.append((author.group(1).strip().lower(), year.group(1)))
    cited = re.findall(r"([A-Z][\w-]+)(?: et al\.| and [A-Z][\w-]+)? (20\d\d)\b", page())
    cited = [(name, year) for name, year in cited if name not in {"Gemma", "Llama", "Qwen"}]
    assert len(cited) > 10, cited  # read r191: rows whose linked chapter cites the source leave the citation to it
    # the first author's surname exactly (bib authors are "Surname, Given"): "Su" must not match "Sun", nor a
    # lower-case handle slip past the pattern
    missing = [(n, y) for n, y in cited if (n.lower(), y) not in set(entries)]
    assert missing == list(NAMED_IN_WORDS), missing  # each named once, and only where the bib has no entry
    assert all(title not in bib for title in NAMED_IN_WORDS.values())
    handles = re.findall(r"\(([a-z][\w-]*) (20\d\d)\)", page())
    assert all((h.lower(), y) in set(entries) for h, y in handles), handles


def core_table_terms() -> list[str]:
    """The first cells of the table under "Core terms", in order."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    table = raw[raw.index("| English |", raw.index("## Core terms")) :]
    return [line.split(" | ")[0][2:] for line in table[: table.index("\n\n")].splitlines()[2:]]


def test_core_lead_names_this_pages_letters_and_the_chapters_i_and_j():
    """Core terms' lead, on the main line (read r201: the letters first, then "Read these rows in order."; read r220:
    the chapters' $i$ and $j$ left the main line for the block below, which already said it): "On this page $m$ is a
    query's position, $n$ a key's, and $i$ the index of a *rotation pair*, two coordinates turned together by one
    angle." Right after it, a
    collapsed block (removed at fix pass 231 for a pointer to the Letters table), "Where chapters use these letters
    otherwise", held the small table, "letter | on this page | in
    some chapters", of $m$, $n$ and $i$ (read r199: a learner from chapter 3 or 8 read this page's $i$, $m$ and $n$ in
    their chapters' senses, with the table that resolves them collapsed at the page's end; read r200: a table of
    exceptions was the first thing a learner met in the section, so the main line gives this page's meanings in one
    sentence and the other chapters' go into the block). The sentence's meanings are the table's "on this page"
    column's, in the same order. Each row's meaning here is the Letters
    table's "meaning here" and its rows' own ($m$ and $n$: the offset row's query and key; $i$: the frequency row's
    pair index, from 0, and the rotation pair row's words). Each row's other meanings are read from the chapters' own
    words and agree with the Letters table's: $m$ a key's position in chapter 9, ALiBi's slope $m$ in chapter 3 and
    $m_h$ in chapter 6, YaRN's $m(s)$ in chapter 10; $n$ an input's length in chapters 8 and 11 and the number of heads
    in chapter 6; $i$ a query's position in exactly the chapters whose markdown writes the offset $j - i$, each saying
    in its own words that $i$ is the query's position and $j$ the key's; chapter 4, which names the letters in its
    symbols table, writes $m$ and $n$ as this page does."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    start = raw.index("## Core terms")
    core = " ".join(raw[start : raw.index("| English |", start)].split())
    sentence = (
        "On this page $m$ is a query's position, $n$ a key's, and $i$ the index of a *rotation pair*, two coordinates"
        " turned together by one angle."
    )
    # decided at fix pass 231 (reads r226, r227 and r230: the block's three rows repeated the Letters table's nearly
    # word for word; read r199 had asked for the other chapters' meanings near this sentence): the block is gone, and
    # one sentence points to the Letters table, which holds each letter's other meanings once (checked below on its
    # rows, against the chapters' own words)
    # fix pass 272 (read r269a #1, unclear: "Read these rows in order." though *decoder*, *bucket* and *logit* have
    # their rows further down; read r269a #2: the Letters section's main line now has a table of the chapters' other
    # letters): that sentence dropped, as the page's opening says where an italic term's row is; the pointer shortened
    pointer = "Some chapters use other letters: see {ref}`Letters <glossary-letters>`."
    assert core == "## Core terms " + sentence + " " + pointer, core
    assert "Read these rows in order" not in raw
    assert "Where chapters use these letters otherwise" not in raw
    assert "$m$ is a query's position, $n$ a key's," in sentence
    # m: the query's position here; elsewhere a key's position, ALiBi's slope, YaRN's attention factor
    ((key_m, slope_m, slope_mh, power_m, yarn_m),) = re.findall(
        r"^\| \$m\$ \| a query's position \| a key's position in chapter (\d+); ALiBi's \*slope\*, \$m\$ in chapter"
        # fix pass 224 (read r223 #2: this row and the Letters table's disagreed): the same places as that row
        # fix pass 276 (read r273b #4, omission: chapter 1's m): "the largest power of two that divides a shift $k$ in
        # chapter 1", checked in test_letters_m_row_gives_chapter_1s_largest_power_of_two
        r" (\d+) and \$m_h\$ in chapter (\d+); the largest power of two that divides a shift \$k\$ in chapter (\d+);"
        r" YaRN's \*attention factor\* \$m\(s\)\$ in chapter (\d+), Reading model code and the claims page \|$",
        letters("$m$"),
    )
    # n: the key's position here; elsewhere an input's length, the number of ALiBi's heads
    ((length_first, length_second, heads_n),) = re.findall(
        r"^\| \$n\$ \| a key's position \| an input's length in chapters (\d+) and (\d+); the number of heads in"
        r" chapter (\d+)'s ALiBi slopes \|$",
        letters("$n$"),
    )
    # i: a rotation pair's index here; elsewhere the query's position, with j the key's
    (listed,) = re.findall(r"\| a query's position in chapters ([\d, and]+), with \$j\$ the key's;", letters("$i$"))
    # this page's meanings: the offset row's query at m and key at n, the Letters table's, the pair rows'
    assert "for a query at position $m$ and a key at $n$" in row("offset")
    assert letters("$m$").startswith("| $m$ | a query's position |") and letters("$n$").startswith(
        "| $n$ | a key's position |"
    )
    assert letters("$i$").startswith("| $i$ | a pair's index, from 0;") and "counting pairs from 0" in row("frequency")
    assert "| two coordinates that RoPE turns together by one angle:" in row("rotation pair")
    stems = {int(Path(p).name[:2]): Path(p).stem for p in glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))}
    # m elsewhere, in the chapters' own words, and the same chapters as the Letters row's
    assert "key $m$" in chapter(stems[int(key_m)])
    assert "with a slope $m$ per head" in chapter(stems[int(slope_m)])
    assert "with a fixed slope $m_h$ for each head" in chapter(stems[int(slope_mh)])
    assert "| $m(s)$ | YaRN's attention factor" in chapter(stems[int(yarn_m)])
    assert "Let $m$ be the largest power of two that divides $k$." in chapter(stems[int(power_m)])
    assert (int(key_m), int(slope_m), int(slope_mh), int(power_m), int(yarn_m)) == (9, 3, 6, 1, 10)
    assert (
        f"| a key's position in chapter {key_m}; ALiBi's *slope*, $m$ in chapter {slope_m} and $m_h$ in chapter"
        f" {slope_mh}; the largest power of two that divides a shift $k$ in chapter {power_m}; YaRN's *attention"
        f" factor* $m(s)$ in chapter {yarn_m}," in letters("$m$")
    )
    # n elsewhere: an input of n tokens in chapters 8 and 11, n heads in chapter 6's slopes; the Letters row's too
    assert "a longer input of $n$ tokens" in chapter(stems[int(length_first)])
    assert "the last of $n$ tokens sits at $n - 1$" in chapter(stems[int(length_second)])
    assert "For $n$ heads, with $n$ a power of two" in chapter(stems[int(heads_n)])
    assert (int(length_first), int(length_second), int(heads_n)) == (8, 11, 6)
    assert (
        f"| an input's length in chapters {length_first} and {length_second}; the number of heads in chapter"
        f" {heads_n}'s ALiBi slopes |" in letters("$n$")
    )
    # i elsewhere: exactly the chapters that write the offset j - i, the Letters row's list
    chapters = {int(n) for n in re.findall(r"\d+", listed)}
    writes = {n for n, stem in stems.items() if re.search(r"j ?- ?i\b", chapter(stem))}
    assert writes == chapters, (writes, chapters)
    # read r220: the chapters' i and j left the main line; fix pass 231: the Letters table's $i$ row says it, once
    assert CHAPTERS_IJ not in " ".join(raw.split()) and CHAPTERS_IJ_BLOCK not in " ".join(raw.split())
    # each chapter's own words: i the query's position, j the key's (the book's offset is key minus query)
    own = {
        1: ("the query token at $i$", "the offset $j - i$"),
        3: ("$j - i$ for a query at $i$ and a key at $j$",),
        6: ("q_i k_j^\\top", "keys $j \\le i$"),
        8: ("the book's relative position $j - i$, key minus query",),
        11: ("A query sits at position $i$ and a key at $j$.",),
    }
    assert set(own) == chapters
    for n, phrases in own.items():
        for phrase in phrases:
            assert phrase in chapter(stems[n]), (n, phrase)
    assert "| $m$, $n$ | the positions of a query and a key; the offset is $n - m$, key minus query |" in chapter(
        stems[4]
    )


def test_letters_block_chapter_lists():
    """The Letters table: $i$ is "a query's position in chapters 1, 3, 6, 8 and 11, with $j$ the key's; the imaginary
    unit $\\mathrm{i}$ in chapters 4 and 5"; $\\theta_i$ is, on this page, "pair $i$'s frequency; in the *sinusoidal
    encoding* row, set by the embedding's width, not the head's", and "$\\omega_i$ in chapter 2": that row's exponent
    reads $d_{\\text{model}}$, which the row calls the embedding's width, and the frequency row's reads the head's
    $d$. Each list is the set of chapters
    whose markdown writes $j - i$, $\\mathrm{i}$ or its own $\\omega_i$ (chapter 4 only names chapter 2's). The visible
    lines under "Core terms": "The *offset* $n - m$ is negative for an earlier key; the *distance* $\\lvert n -
    m\\rvert$ never is. Chapters 3, 5 and 10 also call the offset a
    distance: see Letters and words with more than one meaning": the offset and distance rows, now the table's first
    two, say the same; the chapters named are those whose own words make a distance signed, key minus query, and the
    Letters table's distance row names the same ones; the link leads to that section."""

    ((query, imaginary),) = re.findall(
        r"^\| \$i\$ \| a pair's index, from 0; upright, \$\\mathrm\{i\}\$, the imaginary unit in the \*complex form\*"
        r" row \| a query's position in chapters ([\d, and]+), with \$j\$ the key's; chapter 3 also quotes other"
        r" sources' \$i - j\$, query minus key; the imaginary unit \$\\mathrm\{i\}\$ in chapters ([\d, and]+) \|$",
        letters("$i$"),
    )
    (omega,) = re.findall(
        r"^\| \$\\theta_i\$ \| pair \$i\$'s frequency; in the \*sinusoidal encoding\* row, set by the embedding's"
        r" width, not the head's \| \$\\omega_i\$ in chapter (\d+) \|$",
        letters("$\\theta_i$"),
    )
    sinusoidal, frequency = row("sinusoidal encoding"), row("frequency | 频率")
    assert (
        "with pair $i$'s *frequency* $\\theta_i = 10\\,000^{-2i/d_{\\text{model}}}$ set by the embedding's width"
        " $d_{\\text{model}}$ |" in sinusoidal
    )
    assert "RoPE sets $\\theta_i = b^{-2i/d}$" in frequency and "| the width $d$ of one attention head:" in row(
        "head dimension"
    )  # pass 258b: then where d comes from in a configuration (test_head_dimension_row_warns_that_head_dim_can_differ)

    def numbers(text):
        return {int(n) for n in re.findall(r"\d+", text)}

    uses = {"query": set(), "imaginary": set(), "omega": set()}
    for path in sorted(glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))):
        n = int(Path(path).name[:2])
        md = chapter(Path(path).stem)
        if re.search(r"j ?- ?i\b", md):
            uses["query"].add(n)
        if "\\mathrm{i}" in md:
            uses["imaginary"].add(n)
        own = re.sub(r"[Cc]hapter 2 writes( it)? \$\\omega_i\$", "", md)
        if "\\omega_i" in own:
            uses["omega"].add(n)
    assert uses == {"query": numbers(query), "imaginary": numbers(imaginary), "omega": numbers(omega)}, uses
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    core = re.sub(r"\s+", " ", raw[raw.index("## Core terms") : raw.index("| English |", raw.index("## Core terms"))])
    offset, distance = "n - m", "\\lvert n - m\\rvert"  # the two rows' letters; no sentence above the table
    assert "The *offset*" not in core, core
    # the chapters that use "distance" for the signed offset are named in the block under the Core table and the
    # Letters table, not in Core terms' opening (fix pass 268, read r267b #1: no longer in the distance row)
    assert "use *distance* for the signed offset" not in core and "chapters 3 and 5" not in core, core
    signed = letters("distance").split(" | ")[2].split("; unsigned")[0]  # the signed forms, chapter by chapter
    forms = re.findall(r"\$(?:j - i|r = n - m|\\Delta = n - m)\$ in chapter \d+", signed)
    assert len(forms) == 2 and signed.startswith("signed, as this page's *offset*: "), signed
    assert "(glossary-letters)=\n## Letters and words with more than one meaning\n" in raw
    assert offset == "n - m" and f"key position minus query position, ${offset}$" in row("offset")
    assert "$n$, negative for an earlier key; also called" in row("offset")
    distance_row = row("distance | 距离")
    assert distance == f"\\lvert {offset}\\rvert"
    assert distance_row.startswith(
        f"| distance | 距离 | how far a key lies from its query, ${distance}$, never negative |"
    )
    # read r191: the offset row uses the query and the key, so it comes right after their row; the distance row, which
    # uses the offset's letters, right after it
    terms = core_table_terms()
    assert terms[:4] == ["position encoding", "query, key and value", "offset", "distance"], terms[:4]
    signed_words = {  # each chapter's signed distance, key minus query
        3: ("03_relative", "The distance is always the key's position minus the query's, $j - i$"),
        5: ("05_decay", "**Distance** $r = n - m$: the key's position minus the query's."),
    }
    # chapter 10 calls its signed Delta the offset, as this page does, so the row leaves it out of the signed forms
    assert "depends only on the *offset* $\\Delta = n - m$, key minus query" in chapter("10_rope_today")
    assert numbers(signed) == set(signed_words), signed
    for name, words in signed_words.values():
        assert words in chapter(name), name
    assert numbers(" ".join(forms)) == set(signed_words), letters("distance")
    assert "key position minus query position, $n - m$, for a query at position $m$ and a key at $n$" in row("offset")
    # "upright, $\\mathrm{i}$, the imaginary unit in the *complex form* row": that row writes it so, and defines it
    assert "$x_0 + \\mathrm{i} x_1$, $\\mathrm{i}$ the imaginary unit;" in row("complex form (of RoPE)")


def test_letters_block_k_and_tau_and_trained_length():
    """The Letters table's $k$: "a key vector, as in $q \\cdot k$ | a shift of positions in chapters 1 and 2; the
    clipping distance of Shaw's vectors in chapter 3": the linear relation row writes the shift in words, so on this
    page $k$ is only a key (read r181: the row's $k$ had clashed with the logit row's), chapters 1 and 2 name the shift
    $k$, chapter 3 makes $k$ alone the clipping distance. A sinusoidal table shows the row's property: for each shift,
    one matrix turns every position's encoding into that of the position plus the shift.
    Its $\\tau$ row: "a
    "query temperature" in chapter 10 and on the claims page. Careful: it multiplies the logits, so it sharpens
    attention once above 1" (that a multiplier above 1 sharpens is
    :func:`test_a_larger_multiplier_never_flattens_attention`'s); its trained length row: chapter 10's "trained"
    column is the longest input of any stage. The Letters table has no $\\tau$ row: the page's headword is chapter
    10's and the claims page's "query temperature"."""
    ((chapters, clip),) = re.findall(
        r"\| \$k\$ \| a key vector, as in \$q \\cdot k\$ \| a shift of positions in chapters ([\d and]+); the clipping"
        r" distance of Shaw's vectors in chapter (\d+) \|",
        page(),
    )
    assert (
        "for each shift, one linear map turns the encoding of every position $p$, $\\mathrm{PE}(p)$, into the encoding"
        " of $p$ plus that shift |" in row("linear relation")
    )
    assert "$k$" not in row("linear relation") and "$k$" not in block(
        "Unique and linear relation for a relative encoding"
    )
    # the property itself, on chapter 2's sinusoidal table: one matrix per shift, the same for every position
    table = posenc.sinusoidal_encoding(48, 16, dtype=torch.float64)  # [position, d_model]
    for shift in (1, 3, 7):
        moved = table[:-shift] @ posenc.sinusoidal_shift_matrix(shift, 16).T
        assert torch.allclose(moved, table[shift:], atol=1e-12, rtol=0), shift
    shift = {"01_why_position": "one linear map for each shift $k$", "02_absolute": "depends only on the shift $k$"}
    assert sorted(int(n) for n in re.findall(r"\d+", chapters)) == [int(name[:2]) for name in shift]
    for name, words in shift.items():
        assert words in chapter(name), name
    assert int(clip) == 3 and "Here $k$ alone is the clipping distance, a small integer." in chapter("03_relative")
    with pytest.raises(AssertionError):
        letters("$\\tau$")
    assert row("Llama 4's query temperature $\\tau$ (temperature tuning)")
    assert "| query temperature by position |" in (ROOT / "book" / "claims.md").read_text(encoding="utf-8")
    assert "Llama 4's query temperature" in chapter("10_rope_today")
    assert letters("trained length") == (
        '| trained length | $L$, the length before any RoPE scaling | the "trained" column of chapter 10\'s model table'
        " is the longest input of any training stage, which can exceed $L$ |"
    )
    assert '"Trained" is the longest sequence trained on in any stage' in chapter("10_rope_today")


def test_temperature_section_opens_with_its_multiplier_table():
    """The section "Temperature and query scales" says what its table's fourth column, "multiplier of $q \\cdot k$",
    gives, then gives the table: each term is defined once. The temperature row's link says it leads to Reading model
    code; the query scale's cell is $\\tau$, as transformers' Llama 4 multiplies the queries, and so q . k, by it. The
    first bullet of the block "Other models' query and logit scales", "Llama 4's code, chapter 8 and some texts call a
    growing multiplier of the logits a temperature, though as it grows it sharpens attention": chapter 8's growing
    temperature scales the logits by a log of the number of tokens; transformers' Llama 4 names the
    switch `attn_temperature_tuning` and multiplies each query, so each of its logits, by a factor of 1 or more that
    grows with the position (its own formula, at the default settings); a factor above 1 sharpening is
    :func:`test_a_larger_multiplier_never_flattens_attention`'s."""
    from transformers.models.llama4 import modeling_llama4

    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("### Temperature and query scales") : raw.index("## Attention, kernels and models")]
    header = "| English | 中文 | meaning | multiplier of $q \\cdot k$ | chapter |"
    flat = " ".join(section.split())
    # fix pass 268 (read r267 #1): the rule's sentence opens on its scope, "Where the logit is [...] alone, a larger"
    # fix pass 275 (read r272b #4): the rule's sentence opens on the idea, its scope after it
    # fix pass 276 (reads r273a #2 and r273b #1, unclear: "where the logit is q . k times its multipliers alone"): the
    # scope in words, "as long as nothing else, such as an added bias or a soft-cap, acts on the logit"
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: the caveats came before the idea): the idea before the
    # table, its scope in the block after it, :data:`SCALES_CAVEATS`
    assert flat.index("a larger multiplier sharpens attention:") < flat.index(header) < flat.index(SCALES_CAVEATS)
    # read r199: "Each scale in this table multiplies $q \cdot k$ before the softmax. [...] A *temperature* $t$
    # multiplies $q \cdot k$ by $1/t$": the opening's object is the fourth column's, $q \cdot k$; the temperature's
    # number is its cell's reciprocal; read r200: the sentence naming the fourth column left the main line, whose
    # header names it, and Llama 4's query temperature's number is its cell, $\tau$ itself. "Before the softmax": the
    # softmax scale's row turns $q \cdot k$ into the logit, and every other row's number multiplies on top of it:
    # transformers' Llama 4 multiplies its queries by tau, then hands the attention its `scaling`, head_dim**-0.5; a
    # number c on top of the scale multiplies q . k and the logit alike
    column = header.split(" | ")[3]
    assert column == "multiplier of $q \\cdot k$"
    assert re.findall(SCALES_OPENING, flat)  # fix pass 281: the opening no longer names the column by its place
    assert "column gives each scale's multiplier" not in flat  # read r200: the header says it
    # read r220: the opening no longer restates tau's multiplier; its cell is tau itself
    assert cells("Llama 4's query temperature $\\tau$ (temperature tuning)")[3] == "$\\tau$"
    # read r203: "Each row below is one multiplier of $q \cdot k$ [...], given in the column of that name": the
    # fourth column's header is that name, and every row has its number there
    # fix pass 266 (reads r265 #2 and r265b #1, unclear: the column named twice before the table): the first sentence
    # names the multiplier; the rule's "Read the multiplier, not the name: the table's fourth column gives it" names the
    # column by its place, counted from the table's first column, "English"
    # fix pass 274 (reads r271a #6 and r271b #5): "multiplies or divides", the attention factor under its row's
    # conditions; the column's header still names the number each row multiplies by
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: the idea came after two caveats): "Each row below gives a
    # multiplier of [the column's object] before the softmax", the attention factor's conditions in
    # :data:`SCALES_CAVEATS`
    opening = f"Each row below gives a multiplier of {column[len('multiplier of ') :]} before the softmax. The later"
    assert opening in flat and "column of that name" not in flat
    place = 3  # the fourth column, counted from the first, "English"
    assert header.split(" | ")[place] == column and header.split(" | ")[0] == "| English", header
    table = section[section.index(header) :]
    scale_rows = table[: table.index("\n\n")].splitlines()[2:]
    assert len(scale_rows) >= 5 and all(line.split(" | ")[place].strip() for line in scale_rows), scale_rows
    assert cells("temperature (attention temperature)")[place] == "$1/t$"  # the row's cell
    assert "with two exceptions" not in flat and "the same factor" not in flat  # read r198: the old opening's
    g = torch.Generator().manual_seed(2)
    q, k = torch.randn(2, 5, 16, generator=g, dtype=torch.float64)
    for c in (0.5, 1.2, 3.0):
        raw_score, logit = q @ k.T, q @ k.T / math.sqrt(16)
        assert torch.allclose((c * q) @ k.T / math.sqrt(16), c * logit) and torch.allclose((c * q) @ k.T, c * raw_score)
    assert "the base multiplier that turns $q \\cdot k$ into the logit, $1/\\sqrt d$" in row("softmax scale")
    forward = inspect.getsource(modeling_llama4.Llama4TextAttention.forward)
    assert forward.index("query_states * attn_scales") < forward.index("scaling=self.scaling")
    assert header.split(" | ")[3] == "multiplier of $q \\cdot k$"
    opening = section[: section.index(header)]
    opening = " ".join(opening.split())
    # the opening is the one rule, its lesson first (read r191; read r192 added the attention factor's scope; read
    # r198: the softmax scale's sentence left); read r199: five plain sentences, one idea each, the lesson's two first;
    # which scales change with the query and Llama 4's code's word are the rows' and the blocks' (read r186); read
    # r200: still five, the column's sentence out and Llama 4's query temperature's in
    # fix pass 235: six, the compounding sentence after the lesson (read r234 #2)
    # fix pass 258: seven, "Read the multiplier, not the name." before the three names (reads r253 #1, r253b #2)
    # fix pass 258b: eight, the attention factor's mechanism and its scope in two sentences (reads r258 #3, r258b #2)
    # fix pass 264 (reads r263 #3 and r263b #3): nine, the example at s = 8 after the scope
    # fix pass 266 (reads r265 #2 and r265b #1): seven, the attention factor in one sentence with its conditions, the
    # example at s = 8 in the block :data:`YARN_FACTORS`
    # fix pass 273 (reads r270a #5 and r270b #3, unclear: the lesson crowded by names, the square and its
    # conditions): four, the lesson's two, the compounding, then one sentence on names that point the wrong way
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: two caveats before the idea): three, the rows' multiplier,
    # the rule, and the names; the scope and the compounding are the block :data:`SCALES_CAVEATS`'s
    # fix pass 281 (reads r277a #4 and r277b #1): four, the later rows on top of the first added after the rows'
    # multiplier, and the rule with its scope in its own sentence
    assert opening.count(". ") + opening.endswith(".") == 4, opening
    assert opening.startswith(
        # fix pass 268 (read r267 #1, overstated: a bias or a soft-cap can make a larger multiplier flatten): the
        # rule's scope, a logit that is q . k times the multipliers alone
        # fix pass 274 (reads r271a #6 and r271b #5): multiplies or divides, the attention factor under conditions
        # fix pass 275 (read r272b #4, unclear: the rows and their conditions came before the one idea): the idea first
        # fix pass 276 (reads r273a #2 and r273b #1, unclear: "where the logit is q . k times its multipliers alone"):
        # the condition in words, "as long as nothing else, such as an added bias or a soft-cap, acts on the logit"
        # fix pass 280 (reads r276a #4 and r276b #2): the idea first, the caveats in :data:`SCALES_CAVEATS`
        # fix pass 281 (reads r277a #4 and r277b #1): the later rows on top of the first, and the rule's scope in short
        "### Temperature and query scales Each row below gives a multiplier of $q \\cdot k$ before the softmax. The"
        " later rows multiply on top of the first, usually $1/\\sqrt d$. When nothing else acts on the logit, a larger"
        " multiplier sharpens attention: the top-scoring key gets more of the weight."
    ), opening
    # read r197: "that" no longer opens a sentence, and no sentence says every scale multiplies without its exceptions
    assert "that multiplies" not in opening and "the same number" not in opening, opening
    # fix pass 226 (read r225 #2: Ministral 3's and Mistral 4's scale, the bullet before, changes with the position too)
    assert "Three of the table's scales change with the query" in block("Other models' query and logit scales")
    assert "The first two follow" not in opening and "Llama 4's code" not in opening  # aside: block
    # the word clash is the Letters row's alone: neither before nor after the table
    assert "The word clashes" not in section
    assert letters("temperature").startswith("| temperature | a number $t$ that divides the logits |")
    # the word's block, right under the table: chapter 10's query temperature and its direction, then Llama 4's code's
    # word and its switch (read r191: the clash left the main line)
    assert block(WORD_BLOCK).startswith(
        "- Chapter 10 calls Llama 4's $\\tau$ a query temperature, yet it multiplies the logits: a larger $\\tau$"
        " sharpens. - Llama 4's code also calls its $\\tau$ a temperature: its switch is `attn_temperature_tuning`. -"
    )
    # fix pass 279 (read r275b #4): the table, then its one example paragraph, then the word's block
    after = section[section.index("\n\n", section.index(header)) :].lstrip()
    # fix pass 281: one sentence; fix pass 285 (read r280b #4): its conditions named first
    # fix pass 286 (reads r281a #7 and r281b #3, unclear: the 1.46 fact three times): the example sentence went; the
    # row's multiplier cell states it once on the main line; the word's block follows the table
    assert after.startswith(f"<details><summary>{WORD_BLOCK}</summary>")
    assert "Llama 4's code" not in block("Other models' query and logit scales")
    (direction,) = re.findall(
        r"yet it multiplies the logits: a larger \$\\tau\$ (sharpens|flattens)\.",
        section,
    )
    # chapter 8's "attention temperature that grows" multiplies: Scalable-Softmax scales the logits by a log
    assert "An attention temperature that grows with the query's position: Scalable-Softmax scales the logits by" in (
        chapter("08_extrapolation")
    )
    g = torch.Generator().manual_seed(1)
    z = torch.randn(200, 30, generator=g, dtype=torch.float64) * 2
    entropies = torch.stack([attention_entropy(beta * z) for beta in (1.0, 1.1, 1.5, 2.0, 4.0)])
    assert bool((entropies.diff(dim=0) <= 1e-12).all()) == (direction == "sharpens")  # growing: entropy never rises
    attention = inspect.getsource(modeling_llama4.Llama4TextAttention.forward)
    formula = "torch.log1p(torch.floor((positions.float() + 1.0) / self.floor_scale)) * self.attn_scale + 1.0"
    assert "if self.attn_temperature_tuning and not self.use_rope:" in attention and formula in attention
    config = transformers.Llama4TextConfig()
    assert config.attn_temperature_tuning and config.attn_scale > 0 and config.floor_scale > 0
    positions = torch.arange(0, 40 * config.floor_scale, 97, dtype=torch.float64)
    scales = torch.log1p(torch.floor((positions + 1.0) / config.floor_scale)) * config.attn_scale + 1.0
    assert (scales >= 1).all() and (scales.diff() >= 0).all() and scales[-1] > scales[0], scales  # grows, never below 1
    table = section[section.index(header) : section.index("\n\n", section.index(header))]
    assert table.count("| English |") == 1 and section.count("| English |") == 1  # one table, each term once
    terms = [line.split(" | ")[0][2:] for line in table.strip().splitlines()[2:]]
    assert terms == [
        "softmax scale",
        "temperature (attention temperature)",
        "attention factor",
        "Llama 4's query temperature $\\tau$ (temperature tuning)",
        "Scalable-Softmax",
        "logn attention (`use_logn_attn`)",
    ], terms
    assert cells("temperature (attention temperature)")[3] == "$1/t$"
    assert cells("Llama 4's query temperature $\\tau$ (temperature tuning)")[3] == "$\\tau$"
    assert "query_states = (query_states * attn_scales)" in inspect.getsource(modeling_llama4.Llama4TextAttention)
    assert cells("Scalable-Softmax")[3] == "$\\ln N$ times a learned number, with $N$ the number of tokens attended"
    # Scalable-Softmax multiplies each logit by s log n, s learned and n the number of tokens (Nakanishi 2025), the
    # natural log as chapter 8's "log of the number of tokens attended"
    assert ", {ref}`Reading model code: Temperature rules <glossary-temperature>` |" in row(
        "temperature (attention temperature)"
    )
    assert "Careful" not in row("Llama 4's query temperature $\\tau$ (temperature tuning)")


# ---- rows that no other test names, each checked word by word -------------------------------------------------------


def test_alibi_row_subtracts_a_slope_per_head_times_the_distance():
    """The ALiBi row: "each head subtracts its own slope times the distance from the logits": posenc's ALiBi bias, the
    official slopes, is minus each head's slope times |key - query|, and the heads' slopes differ."""
    (verb,) = re.findall(
        r"each head (subtracts|adds) from each logit the distance times a fixed number of its own, its \*slope\*",
        row("attention with linear biases (ALiBi)"),
    )
    sign = {"subtracts": -1.0, "adds": 1.0}[verb]
    heads, n = 8, 7
    slopes = posenc.alibi_slopes(heads).double()
    assert (slopes > 0).all() and len(set(slopes.tolist())) == heads, slopes  # its own, positive, slope
    bias = posenc.alibi_bias(heads, n, causal=False).double()
    distance = (torch.arange(n)[None, :] - torch.arange(n)[:, None]).abs().double()  # [query, key]
    assert torch.allclose(bias, sign * slopes[:, None, None] * distance, atol=1e-6, rtol=0)


def test_slope_row_is_chapter_6s_m_h_and_a_larger_slope_a_shorter_range():
    """The row "slope (ALiBi)": "in ALiBi, a head's fixed positive number: the head subtracts it times the distance
    from each logit, so a larger slope gives the head a shorter range". Chapter 6 names the slope $m_h$, fixed per
    head, which the row leaves to the Letters table (the page's $m$ is the query's position), and a head's range is
    where its bias reaches $-\\ln 10$, $\\ln 10 / m_h$: posenc's bias, head by head, reaches it first for the larger
    slope. The row sits in Core terms right after the ALiBi row, and the index links it
    there (:func:`test_opening_names_each_section_and_the_index_lists_every_row_once`)."""
    text = row("slope (ALiBi)")
    ((verb, shorter),) = re.findall(
        r"\| in ALiBi, a head's fixed positive number: the head (subtracts|adds) it times the distance from"
        r" each logit, so a larger slope gives the head a (shorter|longer) range \| \{doc\}`6 <",
        text,
    )
    (letter,) = re.findall(r"ALiBi's \*slope\*, \$m\$ in chapter 3 and \$(m_h)\$ in chapter 6;", letters("$m$"))
    c6 = chapter("06_alibi")
    assert f"with a fixed slope ${letter}$ for each head" in c6
    assert "A head's range, here, is the distance $\\ln 10 / m_h$ at which its bias reaches $-\\ln 10$." in c6
    assert verb in row("attention with linear biases (ALiBi)")  # the ALiBi row's verb, checked against posenc there
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8").splitlines()
    at = raw.index(next(line for line in raw if line.startswith("| slope (ALiBi) |")))
    assert raw[at - 1].startswith("| attention with linear biases (ALiBi) |")
    heads, n = 8, 2000
    slopes = posenc.alibi_slopes(heads).double()
    assert bool((slopes > 0).all())
    bias = posenc.alibi_bias(heads, n, causal=False).double()[:, 0, :]  # [head, distance]
    reach = (bias > -math.log(10)).sum(-1).double()  # distances before the bias passes -ln 10
    order = torch.argsort(slopes)
    assert bool((reach[order].diff() < 0).all()) == (shorter == "shorter"), (slopes, reach)
    assert torch.allclose(reach, torch.ceil(math.log(10) / slopes), atol=1.0, rtol=0)


def test_t5_buckets_are_wider_far_from_the_query():
    """The bucket row: "a range of offsets sharing one learned bias per head, wider far from the query": T5's buckets
    (posenc's, which match transformers' T5Attention), for the keys before a causal query, from offset 0 back to T5's
    max_distance: each of the nearer 16 buckets holds one offset, each farther one more than one, and the
    farthest more than twice as many as the first of them. (Rounding makes neighbouring far buckets differ by one offset
    either way, so the sizes are not sorted.) The last bucket, which also takes every farther offset, is left out."""
    from transformers.models.t5.modeling_t5 import T5Attention

    (word,) = re.findall(r"sharing one learned bias per head, (wider|narrower) far from the query", row("bucket"))
    back = -torch.arange(0, 128)  # offsets of earlier keys: key minus query
    ours = posenc.t5_relative_bucket(back, bidirectional=False)
    assert torch.equal(ours, T5Attention._relative_position_bucket(back, bidirectional=False))
    last = int(ours.max())
    sizes = [int((ours == b).sum()) for b in range(last)]  # in order of distance from the query
    exact = 32 // 2  # a causal T5 query: half of its 32 buckets hold one offset each
    near, far = sizes[:exact], sizes[exact:]
    assert set(near) == {1} and min(far) > 1 and far[-1] > 2 * far[0], sizes
    assert word == "wider"  # narrower would say the opposite of these sizes


def test_an_isotropic_unrelated_keys_score_has_one_distribution_at_every_distance():
    """The row "matching key, unrelated key": "a matching key equals its query, $k = q$; an unrelated key is drawn
    independently of it", and the block "RoFormer's bound, and what chapter 5 finds about the decay": "An *isotropic*
    unrelated key's score has the same distribution at every distance", as chapter 5 says. Seeded Gaussian queries and
    keys, d = 16, base 10 000: the score q . R(r) k has mean about 0 and spread about sqrt(d) at distances 0 to 3000,
    and its quartiles agree across distances, while a matching key's mean score falls from d at distance 0."""
    text = row("matching key, unrelated key")
    assert "a matching key equals its query, $k = q$; an unrelated key is drawn independently of it |" in text
    assert "- An *isotropic* unrelated key's score has the same distribution at every distance." in block(
        "RoFormer's bound, and what chapter 5 finds about the decay"
    )
    assert "So its score has the same distribution **at every distance**" in chapter("05_decay")
    d, n = 16, 40_000
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, n, d, generator=g, dtype=torch.float64)
    quartiles, matching = [], []
    for r in (0, 1, 7, 50, 400, 3000):
        R = posenc.rope_matrix(r, d, dtype=torch.float64)
        score = (q * (k @ R.T)).sum(-1)
        assert abs(float(score.mean())) < 0.1 and abs(float(score.std()) / math.sqrt(d) - 1) < 0.02, r
        quartiles.append(torch.quantile(score, torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64)))
        matching.append(float((q * (q @ R.T)).sum(-1).mean()))
    spread = torch.stack(quartiles)
    assert float((spread - spread[0]).abs().max()) < 0.1, spread
    assert abs(matching[0] - d) < 0.2 and min(matching[1:]) < 0.8 * d, matching


def test_mla_caches_one_rotated_key_that_all_heads_share():
    """The MLA row: "it caches one compressed vector per token and one small rotated key shared by all heads", as
    chapter 10 says: in transformers' DeepSeek-V3 attention the joint projection `kv_a_proj_with_mqa` has width
    `kv_lora_rank + qk_rope_head_dim`, whatever the number of heads, and every head's key gets the same rotary part."""
    from transformers.models.deepseek_v3 import modeling_deepseek_v3 as ds3

    # fix pass 273 (read r270b #5, omission: the config fields readers of MLA code meet): the two widths, named
    assert "it caches one compressed vector per token and one small rotated key shared by all heads." in row(
        "multi-head latent attention (MLA)"
    )
    ((rope_field, nope_field, rope_width, nope_width, model),) = re.findall(
        r"shared by all heads\. In a configuration, `(\w+)` is the width of the rotated part of each head's query and"
        r" key, and `(\w+)` that of the unrotated part: (\d+) and (\d+) in ([\w-]+) \|",
        row("multi-head latent attention (MLA)"),
    )
    # DeepSeek-V3's widths: transformers 5.24's DeepseekV3Config defaults, a "Deepseek-V3 style configuration" (its
    # hidden size and layer count are DeepSeek-V3's, as in posenc's copy of its config), and posenc's copy itself
    assert model == "DeepSeek-V3" and "Deepseek-V3 style configuration" in inspect.getsource(
        transformers.DeepseekV3Config
    )
    v3, ours = transformers.DeepseekV3Config(), MODEL_ROPE_CONFIGS["deepseek-v3"]
    assert (v3.num_hidden_layers, v3.num_attention_heads) == (
        ours["extra"]["num_hidden_layers"],
        ours["extra"]["num_attention_heads"],
    )
    for field, width in ((rope_field, rope_width), (nope_field, nope_width)):
        assert getattr(v3, field) == ours["extra"][field] == int(width), field
    assert ours["rotary_dim"] == int(rope_width) and ours["head_dim"] == int(rope_width) + int(nope_width), ours
    # "the rotated part": transformers rotates q_rot and k_rot alone, split off at qk_rope_head_dim's width; the
    # query's other qk_nope_head_dim coordinates pass unrotated
    forward = " ".join(inspect.getsource(ds3.DeepseekV3Attention.forward).split())
    assert "q_pass, q_rot = torch.split(q_states, [self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)" in forward
    assert "q_rot, k_rot = apply_rotary_pos_emb(q_rot, k_rot, cos, sin)" in forward
    assert "query_states = torch.cat((q_pass, q_rot), dim=-1)" in forward
    assert "one *rotary key* $k^R_n$ per token, shared by all heads" in chapter("10_rope_today")
    for heads in (2, 4):
        cfg = transformers.DeepseekV3Config(
            hidden_size=32,
            num_attention_heads=heads,
            num_key_value_heads=heads,
            kv_lora_rank=8,
            q_lora_rank=None,
            qk_rope_head_dim=4,
            qk_nope_head_dim=6,
            v_head_dim=6,
        )
        attention = ds3.DeepseekV3Attention(cfg, 0)
        assert attention.kv_a_proj_with_mqa.out_features == cfg.kv_lora_rank + cfg.qk_rope_head_dim, heads
        g = torch.Generator().manual_seed(heads)
        kv_nope = torch.randn(1, 1, 5, cfg.kv_lora_rank, generator=g)
        k_rot = torch.randn(1, 1, 5, cfg.qk_rope_head_dim, generator=g)
        with torch.no_grad():
            keys, _ = attention.expand_kv(kv_nope, k_rot)
        assert keys.shape[1] == heads
        for h in range(heads):  # the same rotary key in every head
            assert torch.equal(keys[0, h, :, cfg.qk_nope_head_dim :], k_rot[0, 0]), h


def test_gqa_row_query_heads_share_a_key_value_head():
    """The GQA row: "several query heads share one key/value head (Ainslie et al. 2023); with a single key/value head
    for all query heads, it is multi-query attention, MQA (Shazeer 2019)": MQA's own paper, named in words, as the
    book's references.bib has no entry for it. MQA has no row of its own, since no chapter names it: the
    index sends it to GQA's row. In transformers' Llama
    attention, `num_key_value_heads` sets the key projection's width, and `repeat_kv` hands key/value head
    h // (heads / kv heads) to query head h."""
    from transformers.models.llama import modeling_llama

    text = row("grouped-query attention (GQA)")
    assert (
        "| several query heads share one key/value head (Ainslie et al. 2023); with a single key/value head for all"
        " query heads, it is multi-query attention, MQA (Shazeer 2019) |" in text
    )
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    assert "One Write-Head" not in bib  # no bib entry to cite: the row names the paper in words
    index = block("Index, A to Z")
    assert "{ref}`multi-query attention (MQA), see grouped-query attention (GQA) <glossary-attention>`" in index
    for name in sorted(glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))):
        assert not re.search(r"\bMQA\b|multi-query", chapter(Path(name).stem)), name  # no chapter to link
    d, heads = 8, 4
    for kv_heads in (2, 1):  # GQA, then MQA
        cfg = transformers.LlamaConfig(
            hidden_size=heads * d, num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=d
        )
        attention = modeling_llama.LlamaAttention(cfg, 0)
        assert attention.k_proj.out_features == attention.v_proj.out_features == kv_heads * d
        assert attention.q_proj.out_features == heads * d
        x = torch.randn(1, kv_heads, 3, d)
        shared = modeling_llama.repeat_kv(x, heads // kv_heads)
        for h in range(heads):
            assert torch.equal(shared[0, h], x[0, h // (heads // kv_heads)]), (kv_heads, h)


def test_linear_relation_for_a_relative_encoding_shifts_query_and_key_together():
    """The block "Unique and linear relation for a relative encoding": "The *linear relation* becomes shift invariance:
    shifting the query and the key together must leave the logit's position term unchanged", chapter 3's reading; "The
    book keeps the name because shift invariance gives what the relation is for: the model learns a relation such as
    "two tokens back" once, for every position", chapter 1's reason for the property ("$k$ tokens back", with the shift
    in words here, as in the row) and chapter 3's table, which keeps the name; the row "linear relation" keeps chapter
    1's definition alone. ALiBi's and T5's position terms
    stay the same when both positions move by k, and change when the query alone moves."""
    relative = block("Unique and linear relation for a relative encoding")
    (what,) = re.findall(
        r"The \*linear relation\* becomes shift invariance: shifting (the query and the key together|the query alone)"
        r" must leave the logit's position term unchanged\.",
        relative,
    )
    assert relative.endswith(
        "The book keeps the name because shift invariance gives what the relation is for: the model learns a relation"
        ' such as "two tokens back" once, for every position.'
    )
    assert 'the model can learn "$k$ tokens back" once, for every $p$' in chapter("01_why_position")
    assert "| 2 linear relation | ✓ read in the logit: position enters through $j - i$ only |" in chapter("03_relative")
    assert row("linear relation").endswith(
        "the encoding of every position $p$, $\\mathrm{PE}(p)$, into the encoding of $p$ plus that shift |"
        " {doc}`1 <../notebooks/01_why_position>`,"
        " {doc}`2 <../notebooks/02_absolute>`, {doc}`3 <../notebooks/03_relative>` |"
    )
    assert (
        "**Linear relation** is read in the logit: shifting the query and the key together must leave the logit's"
        " position term unchanged." in chapter("03_relative")
    )
    n, k = 40, 5
    alibi = posenc.alibi_bias(2, n, causal=False)[0]
    offsets = torch.arange(n)[None, :] - torch.arange(n)[:, None]
    t5 = posenc.t5_relative_bucket(offsets, bidirectional=True)
    for term in (alibi, t5):
        for i, j in ((3, 10), (20, 4), (8, 8)):
            moved = term[i + k, j + k] if what == "the query and the key together" else term[i + k, j]
            assert term[i, j] == moved, (i, j)
        assert term[3 + k, 10] != term[3, 10]  # the query alone: another position term


def test_longrope_in_transformers_scales_the_first_positions_too():
    """The block "Where papers and code differ", its LongRoPE row: "its paper also leaves a searched number of first
    positions unscaled, which transformers omits": transformers' `longrope`, in a Llama rotary embedding past
    `original_max_position_embeddings`, turns position 1 by the long factors' frequencies, not by the unscaled ones."""
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    assert "| *LongRoPE* | its paper also leaves a searched number of first positions unscaled, which transformers" in (
        note("LongRoPE")
    )
    assert note("LongRoPE").endswith(" omits |") and row("LongRoPE").endswith(
        "one for long | {doc}`7 <../notebooks/07_beyond>`, {doc}`10 <../notebooks/10_rope_today>` |"
    )
    d, base, L = 16, 100.0, 16
    long = [2.0 + i for i in range(d // 2)]
    cfg = _longrope_llama_config(d, base, L, [1.0] * (d // 2), long)
    rope = LlamaRotaryEmbedding(cfg)
    cos, _ = rope(torch.zeros(1, 3 * L, 2 * d), torch.arange(3 * L)[None])  # an input past L: the long factors
    theta = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    first = cos[0, 1, : d // 2].double() / rope.attention_scaling
    assert torch.allclose(first, torch.cos(theta / torch.tensor(long, dtype=torch.float64)), atol=1e-6)
    assert not torch.allclose(first, torch.cos(theta), atol=1e-3)  # position 1 is scaled, not left alone


def test_transformer_xl_adds_learned_per_head_vectors():
    """The Transformer-XL row: "whose logit adds terms for a sinusoidal encoding of the distance and for learned
    per-head vectors", chapter 3's "two learned vectors per head": XLNet, which reuses Transformer-XL's terms, keeps
    them in transformers as `r_w_bias` and `r_r_bias`, one row per head."""
    from transformers.models.xlnet import modeling_xlnet

    assert "whose logit adds terms for a sinusoidal encoding of the distance and for learned per-head vectors |" in row(
        "Transformer-XL"
    )
    c3 = chapter("03_relative")
    assert "Two pair the query with the key's content and with a sinusoidal encoding of their distance." in c3
    assert "The other two are global: two learned vectors per head take the query's place." in c3
    cfg = transformers.XLNetConfig(d_model=24, n_head=3, d_inner=32, n_layer=1, vocab_size=10)
    attention = modeling_xlnet.XLNetRelativeAttention(cfg)
    for name in ("r_w_bias", "r_r_bias"):
        assert tuple(getattr(attention, name).shape) == (cfg.n_head, cfg.d_head), name


def test_xpos_puts_a_decay_on_each_pair():
    """The xPos row: "RoPE with a decay on each pair that grows with the distance": posenc's xPos scales give a query
    at m and a key at n <= m a product below 1 on every pair once n < m, falling as the key moves back."""
    (kind,) = re.findall(r"RoPE with a (decay|gain) on each pair that grows with the distance", row("xPos"))
    d, m = 16, 3000
    q_scale, k_scale = posenc.xpos_scale(torch.arange(m + 1), d)
    product = (q_scale[m] * k_scale[: m + 1]).double()  # [key position, coordinate]
    assert torch.allclose(product[m], torch.ones(d, dtype=torch.float64), atol=1e-6)  # the query's own position
    earlier = product[:m]
    assert (earlier < 1).all() if kind == "decay" else (earlier > 1).all(), earlier.min()
    assert (product[1:] >= product[:-1] - 1e-12).all()  # farther back (smaller n): smaller, on every coordinate


def test_letters_block_fire_and_chapter_7s_two_meanings_of_s():
    """The Letters table: $d$ is "the distance $\\lvert j - i\\rvert$ in chapter 11's FIRE", and $s$ has "both meanings
    in chapter 7's section "Static or length-dependent"": chapter 11 writes $d = |j - i|$ in its FIRE rule; chapter
    7's section sets $s$ from the current length as the stretch and names the configuration's `factor` $s$."""
    (fire,) = re.findall(r"the distance \$\\lvert j - i\\rvert\$ in chapter (\d+)'s FIRE \|", page())
    (both,) = re.findall(r"both meanings in chapter (\d+)'s section \"Static or length-dependent\"", page())
    names = {"11": "11_learned_position", "7": "07_beyond"}
    assert "With $d = |j - i|$ the distance, the rule is" in chapter(names[fire])
    raw = "\n".join(
        "".join(c["source"])
        for c in json.loads((ROOT / "notebooks" / f"{names[both]}.ipynb").read_text(encoding="utf-8"))["cells"]
        if c["cell_type"] == "markdown"
    )
    start = raw.index("## Static or length-dependent")
    section = re.sub(r"\s+", " ", raw[start : raw.index("\n## ", start + 5)])
    assert "sets $s$ from the current length $\\ell$, as $\\max(\\ell/L, 1)$" in section  # the stretch
    assert "the configuration's `factor` $s$" in section  # the extension factor


def test_rnope_swa_row_cohere_did_so_before_llama_4_with_sliding_windows():
    """The RNoPE-SWA row: "RoPE only in the *sliding-window attention* layers and none in the global ones", whose
    italics lead to the row "sliding-window attention (SWA)", which expands the name's SWA (read r192) (its source,
    Yang et al. 2025, "Rope to Nope and Back Again", is chapter 10's citation), and
    the Attention block: "Cohere's Command R7B and Command A use *RNoPE-SWA*. Llama 4's *iRoPE* came later, with chunks
    in place of windows", as chapters 1 and 10 say (chapter 10 names the design after Yang et al.): transformers'
    Cohere2 config makes three sliding-window layers, then one full-attention layer, repeated; its attention applies
    RoPE in the sliding-window layers only, so a full layer's output does not change with the rotation it is given."""
    from transformers.models.cohere2 import modeling_cohere2

    assert "| RNoPE-SWA | | RoPE only in the *sliding-window attention* layers and none in the global ones |" in row(
        "RNoPE-SWA"
    )
    assert row("sliding-window attention (SWA)").startswith("| sliding-window attention (SWA) | 滑动窗口注意力 |")
    assert (
        "- Cohere's Command R7B and Command A use *RNoPE-SWA*. Llama 4's *iRoPE* came later, with chunks in place of"
        " windows." in models_block("## Attention, kernels and models")
    )
    assert "Cohere" not in row("iRoPE") + row("RNoPE-SWA")  # said once, in the block
    linked = re.findall(r"<\.\./notebooks/(\w+)>`", row("RNoPE-SWA"))
    assert linked and all("RNoPE-SWA" in chapter(name) for name in linked), linked  # chapter 1 describes, not names
    assert "Cohere's Command R7B and Command A did the same before Llama 4" in chapter("01_why_position")
    c10 = chapter("10_rope_today")
    assert (
        "RoPE only in the sliding-window layers; the global layers have none, the design [Yang et al. 2025]" in c10
        and '"cite:yang2025ropetonope") call RNoPE-SWA' in c10
    )
    cfg = transformers.Cohere2Config(
        vocab_size=32,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=8,
        num_attention_heads=2,
        num_key_value_heads=2,
    )
    cfg._attn_implementation = "eager"
    assert cfg.layer_types == (["sliding_attention"] * 3 + ["full_attention"]) * 2, cfg.layer_types
    g = torch.Generator().manual_seed(0)
    x = torch.randn(1, 5, 32, generator=g)
    d = cfg.hidden_size // cfg.num_attention_heads
    angles = torch.randn(1, 5, d, generator=g)
    for layer in (0, 3):
        attention = modeling_cohere2.Cohere2Attention(cfg, layer).eval()
        with torch.no_grad():
            plain = attention(x, (torch.ones(1, 5, d), torch.zeros(1, 5, d)), None)[0]
            turned = attention(x, (angles.cos(), angles.sin()), None)[0]
        uses_rope = not torch.allclose(plain, turned, atol=1e-6)
        assert uses_rope == (cfg.layer_types[layer] == "sliding_attention"), layer


def test_qwen_logn_query_scale_matches_the_claims_page():
    """The row "logn attention (`use_logn_attn`)": "Qwen-7B's factor on the query at position $p \\ge L$, at inference
    only, so it multiplies that query's logits", each logit multiplied by "$\\log_L(p + 1)$"; its indexing and its
    field, in the block "Other models' query and logit scales" (read r178: the row's caveats): "*logn attention*
    counts the query's position $p$ from 0, and its $L$ is Qwen-7B's configuration's `seq_length`".
    Qwen-7B's code is not installed: the rule is transcribed from its modeling_qwen.py (QWenAttention: `logn_list =
    [math.log(i, self.seq_length) if i > self.seq_length else 1 for i in range(1, 32768)]`, applied to the queries
    only when the key length exceeds `seq_length` and `not self.training`), as tests/test_summary.py does for the claims
    page, whose words the page repeats."""
    meaning, factor = cells("logn attention (`use_logn_attn`)")[2:4]
    assert meaning == (
        "Qwen-7B's factor on the query at position $p \\ge L$, at inference only, so it multiplies that query's logits"
    )
    assert factor == "$\\log_L(p + 1)$"
    assert "use_logn_attn" not in block("Other models' query and logit scales")  # said once, in the row
    assert (
        "- *logn attention* counts the query's position $p$ from 0, and its $L$ is Qwen-7B's configuration's"
        " `seq_length`." in block("Other models' query and logit scales")
    )
    claims = re.sub(r"\s+", " ", (ROOT / "book" / "claims.md").read_text(encoding="utf-8"))
    assert (
        "`use_logn_attn` also multiplies the query at position $p \\ge L$, counting from 0, by $\\log_L(p + 1)$."
        in (claims)
    )
    L = 64
    logn_list = [math.log(i, L) if i > L else 1 for i in range(1, 8 * L)]  # index p: the query at position p
    assert all(logn_list[p] == 1 for p in range(L))
    assert all(
        abs(logn_list[p] - math.log(p + 1) / math.log(L)) < 1e-12 and logn_list[p] > 1 for p in range(L, 8 * L - 1)
    )


# ---- citations by bib key, four row wordings, rows of later designs, the primer's opening ----------------------

#: each citing row's bib keys: a row must cite exactly these entries' first authors and years, so a right author with
#: the year of another of their papers (ALiBi as "Press et al. 2021", Shortformer's year) fails
CITED_KEYS = {
    "NoPE": {"haviv2022nope", "kazemnejad2023nope"},
    "rotary position embedding (RoPE)": {"su2021roformer"},
    "attention with linear biases (ALiBi)": {"press2022alibi"},
    "contextual position encoding (CoPE)": {"golovneva2024cope"},
    "CoPE": {"li2026clippedrope"},  # the Letters table's row: Clipped RoPE, not FIRE's li2024fire
    "DAPE": {"zheng2024dape"},
    "DeBERTa": {"he2021deberta"},
    "FIRE": {"li2024fire"},
    "Forgetting Transformer": {"lin2025forgetting"},
    "KERPLE": {"chi2022kerple"},
    "p-RoPE, proportional RoPE": {"barbero2025round"},
    "PaTH attention": {"yang2025path"},
    "Abacus embeddings": {"mcleish2024abacus"},
    "position coupling": {"cho2024coupling"},
    "progressive interpolation": {"li2024fire"},
    "Shaw's relative position vectors": {"shaw2018relative"},
    "stick-breaking attention": {"tan2025stickbreaking"},
    "Transformer-XL": {"dai2019transformerxl"},
    "xPos": {"sun2022xpos"},
    "position interpolation (PI)": {"chen2023pi"},
    "NTK-aware scaling": {"bloc97ntk2023"},
    "adjusted base frequency (ABF)": {"xiong2023effective"},
    "NTK-by-parts": {"peng2024yarn"},
    "YaRN": {"peng2024yarn"},
    "dynamic NTK (`dynamic`)": {"emozilla2023dynamic"},
    "LongRoPE": {"ding2024longrope"},
    "Dual Chunk Attention (DCA)": {"an2024dca"},
    "Self-Extend": {"jin2024selfextend"},
    "PoSE": {"zhu2024pose"},
    "RNoPE-SWA": {"yang2025ropetonope"},
    "passkey retrieval": {"mohtashami2023landmark"},
    "needle-in-a-haystack test": {"kamradt2023needle"},
    "sliding-window evaluation": {"press2022alibi"},
    "early token curse": {"press2021shortformer"},
    "critical dimension": {"liu2023scaling"},
    "lower bound on the base": {"men2024base"},
    "Scalable-Softmax": {"nakanishi2025scalable"},
    "attention sink": {"xiao2023streamingllm"},
    "StreamingLLM": {"xiao2023streamingllm"},
    "FlashAttention": {"dao2022flashattention"},
    "FlexAttention": {"dong2024flexattention"},
    "grouped-query attention (GQA)": {"ainslie2023gqa"},
    "linear attention": {"katharopoulos2020linear"},
    "M-RoPE (multimodal RoPE)": {"wang2024qwen2vl"},
    "multi-head latent attention (MLA)": {"deepseek2024v2"},
    "Gated DeltaNet": {"yang2025gateddeltanet"},
}


def test_each_rows_citations_are_its_own_bib_entries():
    """Every row that cites "Author et al. YEAR", "Author and Author YEAR" or a handle such as "(bloc97 2023)" cites
    exactly the first authors and years of the bib entries :data:`CITED_KEYS` gives it, and every citing row is listed
    there; every other row listed there cites nothing, and a chapter it links cites each of its entries. A "cite:KEY" in
    a link's title must be one of them. So "(Press et al. 2021)" in the ALiBi row, "(Chi et al. 2023)" in KERPLE's or
    "(Sun et al. 2023)" in xPos's fails, though each names a real entry."""
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    entries = {}
    for entry in re.split(r"\n@", bib):
        key = re.match(r"@?\w+\{([^,\s]+),", entry.strip())
        author = re.search(r"author\s*=\s*\{\{?([^,}]+)", entry)
        year = re.search(r"year\s*=\s*\{(\d{4})\}", entry)
        if key and author and year:
            entries[key.group(1)] = (author.group(1).strip().lower(), year.group(1))
    citing, rows_ = {}, {}
    for line in (ROOT / "book" / "glossary.md").read_text(encoding="utf-8").splitlines():
        if not line.startswith("| "):
            continue
        rows_.setdefault(line.split(" | ")[0][2:], line)
        cited = re.findall(r"([A-Z][\w-]+)(?: et al\.| and [A-Z][\w-]+)? (20\d\d)\b", line)
        cited += re.findall(r"\(([a-z][\w-]*) (20\d\d)\)", line)
        cited = {(name.lower(), year) for name, year in cited if name not in {"Gemma", "Llama", "Qwen"}}
        cited -= {(name.lower(), year) for name, year in NAMED_IN_WORDS}  # no bib entry: named in words
        if cited:
            term = line.split(" | ")[0][2:]
            citing[term] = cited
            keys = CITED_KEYS.get(term, set())
            assert cited == {entries[k] for k in keys}, (term, cited, keys)
            for key in re.findall(r'"cite:([\w-]+)"', line):
                assert key in keys, (term, key)
    assert set(citing) <= set(CITED_KEYS), set(citing) - set(CITED_KEYS)
    # read r191: a row that cites nothing leaves its source to a chapter it links, which cites that very entry
    # ("cite:KEY" in the link's title, or a link to the entry's arXiv number); so the source is one click away and the
    # cells keep few digits
    eprints = dict(re.findall(r"@\w+\{([^,\s]+),[^@]*?eprint\s*=\s*\{([\d.]+)\}", bib))
    for term in set(CITED_KEYS) - set(citing):
        linked = re.findall(r"<\.\./notebooks/(\w+)>`", rows_[term])
        for key in CITED_KEYS[term]:
            marks = [f'"cite:{key}"'] + ([f"arxiv.org/abs/{eprints[key]})"] if key in eprints else [])
            assert any(mark in chapter(name) for name in linked for mark in marks), (term, key, linked)
    assert len(citing) >= 6 and len(set(CITED_KEYS) - set(citing)) >= 30, citing


def test_letters_trigram_dca_and_axial_rows_match_their_sources():
    """Four row wordings, each against its source. The Letters table's "a key's position in chapter 9"
    (the one chapter whose markdown writes "key $m$"); the trigram row's "from the two before" (the baseline's table
    is indexed by two previous tokens); DCA's "Qwen2.5's 1M-token models" (chapter 10's words, with the config field);
    axial 2-D RoPE's "half the pairs turn with the row, half with the column" (posenc.rope_cos_sin_2d)."""
    import glob

    (key_chapter,) = re.findall(
        r"\| a key's position in chapter (\d+); ALiBi's \*slope\*, \$m\$ in chapter 3", letters("$m$")
    )
    writers = [
        int(Path(p).name[:2])
        for p in sorted(glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb")))
        if "key $m$" in chapter(Path(p).stem)
    ]
    assert writers == [int(key_chapter)], writers
    (before,) = re.findall(r"it predicts each token from the (\w+) before,", row("trigram baseline"))
    run = load_results("extrapolation", check=False)
    corpus = PasskeyCorpus(**run["config"]["corpus"])
    from posenc.experiments.evaluation import TrigramBaseline

    trigram = TrigramBaseline(corpus, length=8, sequences=1)
    assert trigram.log_probs.dim() - 1 == {"one": 1, "two": 2, "three": 3}[before], trigram.log_probs.shape
    (model,) = re.findall(
        r"([\w.]+)'s 1M-token models ask for it with `dual_chunk_attention_config`", note("Dual Chunk Attention (DCA)")
    )
    c10 = chapter("10_rope_today")
    assert (
        f"{model}'s 1M-token models answer the question a third way. Their configs' `dual_chunk_attention_config`"
        in c10
    )
    ((rows_share, cols_share),) = re.findall(
        r"RoPE for image patches: (\w+) the pairs turn with the row, (\w+) with the column", row("axial 2-D RoPE")
    )
    d, rows, cols = 16, 3, 5
    cos, _ = posenc.rope_cos_sin_2d(rows, cols, d, dtype=torch.float64)
    grid = cos[:, : d // 2].reshape(rows, cols, d // 2)  # half layout: pair i's cos in column i
    with_row = [i for i in range(d // 2) if grid[0, 0, i] != grid[1, 0, i]]
    with_col = [i for i in range(d // 2) if grid[0, 0, i] != grid[0, 1, i]]
    assert not set(with_row) & set(with_col) and len(with_row) + len(with_col) == d // 2
    share = {"half": 0.5, "a third": 1 / 3}
    assert (share[rows_share], share[cols_share]) == (len(with_row) / (d // 2), len(with_col) / (d // 2))


def test_rows_of_later_designs_match_their_chapters_and_the_primers_opening():
    """Rows for designs the chapters name, each against its chapter: Self-Extend (chapter 8 names it, with its citation,
    among the kinds of attention it does not test); the Forgetting Transformer (chapter 11: log gates
    summed between key and query, each from one token, "an ALiBi whose slope the content sets"); stick-breaking
    attention (chapter 11 names it; the share rule is the paper's); Gated DeltaNet (chapter 10: Qwen3-Next's "one layer
    in four is full attention ..., the others Gated DeltaNet, a linear attention; only the full-attention layers get
    RoPE"). The "unique" row's "different vectors for different positions". The primer's opening, "a *slow pair*, one
    that turns less than once in training, meets angles that training never showed it", is the slow pair row's
    definition; "each rule below" is not claimed, since DCA and Self-Extend remap positions instead."""
    c8, c10, c11 = chapter("08_extrapolation"), chapter("10_rope_today"), chapter("11_learned_position")
    assert 'Self-Extend ([Jin et al. 2024](https://arxiv.org/abs/2401.01325 "cite:jin2024selfextend"))' in c8
    assert "| a way to read inputs longer than $L$ with no further training, by grouping far positions |" in row(
        "Self-Extend"
    )
    assert (
        "- *Self-Extend* groups far positions so that attention meets no distance longer than in training, up to a"
        " length its group size sets." in block(MORE_LONGER)
    )
    assert "{doc}`8 <../notebooks/08_extrapolation>`" in row("Self-Extend")
    assert "also sums log gates between key and query, but each of its gates depends on one token" in c11
    assert (
        "the Forgetting Transformer's bias (last block of the appendix), an ALiBi whose slope the content sets" in c11
    )
    # fix pass 240 (read r239 #1: "an ALiBi whose slope the content sets" drew one slope per head or query; each
    # token's gate sets its own step, and only equal gates give an ALiBi): the row says the sum, as the block does
    assert (
        # fix pass 252 (read r251b #2: "from the key" included the key's own gate; the paper and the block sum the
        # gates after the key, up to the query)
        # fix pass 280 (read r276b #5, unclear: a 45-word cell): one sentence, the per-token step; the sum's range and
        # the equal gates' ALiBi moved to the block "The Forgetting Transformer's sum"
        "| softmax attention with a forget gate per token, so each token's content sets its own step of the decay |"
    ) in row("Forgetting Transformer")
    assert "with equal gates" not in row("Forgetting Transformer")
    assert "up to and including the query; the key's own gate is left out. With equal gates it is an ALiBi." in block(
        "The Forgetting Transformer's sum"
    )
    # fix pass 252 (read r251b #1: flex_attention hands score_mod the scaled q . k, a logit in the page's words):
    # torch's flex_attention multiplies by the scale before score_mod
    assert "which changes each *logit* with a `score_mod` function" in row("FlexAttention")
    import warnings

    from torch.nn.attention.flex_attention import flex_attention

    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 1, 1, 5, 8, generator=gen, dtype=torch.float64)
    v = torch.randn(1, 1, 5, 8, generator=gen, dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # eager flex_attention warns that it is not compiled
        undone = flex_attention(q, k, v, score_mod=lambda score, b, h, qi, ki: score * 8**0.5)  # undo 1/sqrt(d)
    raw = torch.softmax(q @ k.transpose(-1, -2), -1) @ v  # softmax of the raw scores q . k
    assert torch.allclose(undone, raw, atol=1e-12)  # so score_mod received q . k / sqrt(d), the logit
    assert "stick-breaking attention" in c11
    assert (
        "one layer in four is full attention (`full_attention_interval` 4), the others Gated DeltaNet, a linear"
        " attention; only the full-attention layers get RoPE" in c10
    )
    assert "- Qwen3-Next uses *Gated DeltaNet* in three layers of four and gives RoPE only to the others." in (
        models_block("## Attention, kernels and models")
    )
    assert row("Gated DeltaNet").startswith(
        "| Gated DeltaNet | | a *linear attention* layer with a gate per token and a delta-rule update (Yang et al."
        ' 2025, "Gated Delta Networks") |'
    )
    # the citation, which no chapter it links gives: its bib entry, arXiv 2412.06464, titled as the row says; "Yang et
    # al. 2025" alone would also name PaTH's and RNoPE-SWA's entries, so the row adds the title
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    (entry,) = re.findall(r"@\w+\{yang2025gateddeltanet,(.*?)\n\}", bib, re.S)
    assert "title         = {Gated Delta Networks: Improving {Mamba2} with Delta Rule}" in entry
    assert "author        = {Yang, Songlin and Kautz, Jan and Hatamizadeh, Ali}" in entry
    assert "eprint        = {2412.06464}" in entry and "year          = {2025}" in entry
    assert "Qwen3-Next's Gated DeltaNet layers apply such gates too, with a delta-rule update" in c11
    # the Forgetting Transformer's bias: the sum of log gates of the tokens after the key up to the query, a
    # difference of two running sums; with equal gates it is ALiBi's line, slope -log f
    g = torch.Generator().manual_seed(0)
    log_f = torch.nn.functional.logsigmoid(torch.randn(7, generator=g, dtype=torch.float64))
    run = torch.cumsum(log_f, 0)
    bias = run[:, None] - run[None, :]  # [query, key]
    for i in range(7):
        for j in range(i + 1):
            assert abs(float(bias[i, j]) - float(log_f[j + 1 : i + 1].sum())) < 1e-12
    equal = torch.full((7,), math.log(0.9), dtype=torch.float64).cumsum(0)
    line = equal[:, None] - equal[None, :]
    offsets = torch.arange(7)[:, None] - torch.arange(7)[None, :]
    assert torch.allclose(line, math.log(0.9) * offsets.double(), atol=1e-12)
    # stick-breaking: nearest key first, each takes the share beta of what nearer keys left; the weights sum to at
    # most 1
    beta = torch.sigmoid(torch.randn(6, generator=g, dtype=torch.float64))  # keys 0..5, key 5 nearest the query
    left, weights = 1.0, torch.zeros(6, dtype=torch.float64)
    for j in reversed(range(6)):
        weights[j] = beta[j] * left
        left = left * (1 - beta[j])
    assert float(weights.sum()) <= 1 and abs(float(weights.sum()) + left - 1) < 1e-12
    assert (
        "nearest key first, the query gives each key the share $\\sigma(q \\cdot k/\\sqrt d)$ of the weight that the"
        " nearer keys left" in row("stick-breaking attention")
    )
    assert (
        "one vector for each position, the same in every sequence, and different vectors for different positions |"
        in (row("unique (encoding)"))
    )
    text = page()
    # read r191: the stretch, the input's length over L that a slow pair needs dividing by, is the worked block's; the
    # main line says only that a scaling's slowing is what keeps the angle from being new
    assert "Dividing its frequency by about the input's length over $L$" not in text
    assert SLOW_PAIR_CLAUSE + " " + FASTEST_PAIR_LINES in text and LESSON + " " + FIXED_RULES in text
    # the sentence speaks of RoPE scalings, not of the table below it: the table also holds methods that remap
    # positions, a fine-tuning scheme and tests, none of which divides a frequency
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    primer = re.sub(r"\s+", " ", raw[raw.index("(glossary-longer)=") : raw.index("<details><summary>Worked example")])
    others = ("Dual Chunk Attention (DCA)", "Self-Extend", "PoSE", "passkey retrieval", "perplexity")
    assert all(re.match(rf"\| {re.escape(term)} \|", row(term)) for term in others)
    assert not re.search(r"scalings? below|rows? below|table below", primer), primer
    # the slow pair row is one definition; its decoder clause is the main line's, after the table
    assert SLOW_ROW_MEANING in row("slow pair")
    assert SLOW_PAIR_CLAUSE in primer
    assert "decoder" not in block("Turns in L and the fast pairs' distances")


# ---- row wordings against their sources, the base of the decay row, $n$, Gemma's scales --------------------------


def test_row_wordings_match_their_chapters_and_sources():
    """Row wordings, each against its source: the Forgetting Transformer's "after the key, up to and including the
    query"; progressive interpolation's "the same log of $\\max(m, L_{\\text{thr}})$"; Scalable-Softmax's "log of the
    number of tokens attended"; linear attention's "grows linearly with the length"; local and global layers' "a window
    of recent tokens in Gemma 3 or the query's own chunk in Llama 4" (now the Attention block's); chapter 5's "128-wide
    heads of base 10 000" (the block "RoFormer's bound, and what chapter 5 finds about the decay"); the Letters table's
    $n$; and the Gemma bullets of "Other models' query and logit scales"."""
    c3, c5, c8, c11 = (chapter(n) for n in ("03_relative", "05_decay", "08_extrapolation", "11_learned_position"))
    # FoX: D_ij = sum of log f_l for l from j + 1 to i (Lin et al. 2025), the key's own gate left out: a difference of
    # two running sums, as chapter 11 says; "from the key" would add the key's own gate
    # the row holds the definition (r177), the sum's range is its block's alone
    # fix pass 240 (read r239 #1): the row says the sum, its exact range stays the block's ("from the key to the
    # query" in words; which end counts is the block's), and the ALiBi it equals only with equal gates
    # (equal gates f give i - j equal terms, ALiBi's slope -ln f)
    # fix pass 280 (read r276b #5, unclear: a 45-word cell): the row is one sentence; the range, after the key up to
    # and including the query, and the equal gates' ALiBi are the block's (checked below and in
    # test_rows_of_later_designs_match_their_chapters_and_the_primers_opening)
    assert row("Forgetting Transformer") == (
        "| Forgetting Transformer | | softmax attention with a forget gate per token, so each token's content sets its"
        " own step of the decay | {doc}`11 <../notebooks/11_learned_position>` |"
    )
    assert block("The Forgetting Transformer's sum").endswith("With equal gates it is an ALiBi.")
    (where,) = re.findall(
        r"^The \*Forgetting Transformer\* adds to a logit the log gates of the tokens (\w+) the key, up to and"
        r" including the query; the key's own gate is left out\.",
        block("The Forgetting Transformer's sum"),
    )
    assert where == "after", where
    assert "Its bias is then a difference of two running sums, one per token" in c11
    g = torch.Generator().manual_seed(1)
    log_f = torch.nn.functional.logsigmoid(torch.randn(6, generator=g, dtype=torch.float64))
    run = torch.cumsum(log_f, 0)
    i, j = 5, 2
    assert abs(float(run[i] - run[j]) - float(log_f[j + 1 : i + 1].sum())) < 1e-12
    assert abs(float(run[i] - run[j]) - float(log_f[j : i + 1].sum())) > 1e-6
    # FIRE: divided by psi of the query's position, chapter 11's words (its [0, 1] range: the FIRE range test)
    assert "/\\psi(\\max(m, L_{\\text{thr}}))$" in block("FIRE's progressive interpolation")
    assert "Dividing by $\\psi$ of the query's position is what FIRE's paper calls *progressive interpolation*." in c11
    # Scalable-Softmax: the log of the number of tokens attended, as chapters 5 and 8 say
    assert "| $\\ln N$ times a learned number, with $N$ the number of tokens attended |" in row("Scalable-Softmax")
    assert "Scalable-Softmax scales the logits by   the logarithm of the number of tokens attended".replace(
        "   ", " "
    ) in (" ".join(c8.split()))
    assert "Scalable-Softmax with the logarithm of the number of keys" in c5
    # linear attention: cost linear in the length (chapter 3: L d^2 against softmax's L^2 d; chapter 4's words)
    assert "so its cost grows linearly with the length" in row("linear attention")
    assert "Softmax attention's work grows like $L^2 d$, linear attention's like $L d^2$" in c3
    assert "its cost grows linearly with the length" in chapter("04_rope")
    # local and global layers: Gemma 3's local layers use a sliding window, Llama 4's chunks (transformers' configs)
    assert "a local layer attends only to nearby keys, a window or a chunk, and a global layer" in row(
        "local and global layers"
    )
    assert "- A local layer attends to a window of recent tokens in Gemma 3, to the query's own chunk in Llama 4." in (
        models_block("## Attention, kernels and models")
    )
    gemma3, llama4 = transformers.Gemma3TextConfig(), transformers.Llama4TextConfig()
    assert gemma3.sliding_window and getattr(gemma3, "attention_chunk_size", None) is None
    assert llama4.attention_chunk_size
    # long-term decay: chapter 5's heads, 128 wide with base 10^4 unless said otherwise
    # fix pass 281 (read r277b #5, unclear: the row gave the claim, not chapter 5's verdict): the verdict, as the block
    # states it (test_long_term_decay_rows_verdict_is_the_blocks)
    assert row("long-term decay").startswith(
        # fix pass 282 (read r278a #4, overstated mild: the verdict read as any head's): the row names chapter 5's head
        # fix pass 287 (read r282b #5, unclear: five qualifiers in one sentence): two short sentences
        "| long-term decay | 远程衰减 | RoFormer's claim that RoPE's scores fall with distance. Chapter 5 finds it only"
        " for a *matching key*, not an unrelated one, in its head of width 128 and base 10 000."
    )
    ((width, base),) = re.findall(
        # fix pass 264 (read r263b #1): the bullet opens with its finding, in this head
        r"- In chapter 5's (\d+)-wide heads of base ([\d ]+), a \*matching key\*'s score falls to about zero",
        block("RoFormer's bound, and what chapter 5 finds about the decay"),
    )
    assert "Heads have $d = 128$ dimensions and the base is $b = 10^4$, unless said otherwise." in c5
    assert (int(width), int(base.replace(" ", ""))) == (128, 10_000)
    # $n$: this page's key position (the offset row), the input length in chapters 8 and 11, the number of heads in
    # chapter 6's ALiBi slopes (this page writes H there: the Core block's ALiBi bullet)
    assert "key position minus query position, $n - m$, for a query at position $m$ and a key at $n$" in row("offset")
    assert (
        "| $n$ | a key's position | an input's length in chapters 8 and 11; the number of heads in chapter 6's ALiBi"
        " slopes |" in page()
    )
    assert "For $n$ heads, with $n$ a power of two, the slopes are $m_h = 2^{-8(h+1)/n}$" in chapter("06_alibi")
    assert "Five words name how a model meets a longer input of $n$ tokens." in c8
    assert "Positions count from 0: the last of $n$ tokens sits at $n - 1$." in chapter("11_learned_position")
    # Gemma 3: no soft-cap by default, query and key norms; Gemma 2 and 3 scale q.k by query_pre_attn_scalar^(-1/2)
    from transformers.models.gemma2 import modeling_gemma2
    from transformers.models.gemma3 import modeling_gemma3

    text = page()
    assert "Gemma 3 has no soft-cap by default and normalises its queries and keys, a *QK-norm*." in text
    assert gemma3.attn_logit_softcapping is None
    assert "self.q_norm" in inspect.getsource(modeling_gemma3.Gemma3Attention.__init__)
    (default,) = re.findall(
        # fix pass 232 (read r231 #1: "not of $d$" read as a scale other than 1/sqrt(d) in every Gemma): the default
        # equals the default head width, so the two differ only where a file sets them apart
        r"Gemma 2 and 3 scale \$q \\cdot k\$ by one over the square root of `query_pre_attn_scalar`, a field of its"
        r" own, not of \$d\$; transformers' default is (\d+)\. That is also its default head width, so the scale"
        r" differs from \$1/\\sqrt d\$ only where a file sets the two apart,"
        # fix pass 259 (reads r259 #3, overstated, and r259b #1: "only where" read as rare; the 27B files do)
        r" as Gemma 2 27B's and Gemma 3 27B's do: 144 and 168 against a head width of 128\.",
        text,
    )
    # fix pass 275 (read r272a #7, assert-cannot-fail: a loop checked hidden // heads == scalar on numbers typed
    # into this test, so it could not catch a wrong value; removed): 144 and 168 are the released files' values
    # (google/gemma-2-27b and google/gemma-3-27b-it config.json), which no offline check can read. What can be
    # checked: posenc's copy of Gemma 3 27B's RoPE fields gives the head width 128, and transformers' defaults set the
    # scalar equal to the head width, so a file that sets 144 or 168 sets the two apart.
    assert MODEL_ROPE_CONFIGS["gemma-3-27b"]["head_dim"] == 128
    for config, module in ((transformers.Gemma2Config(), modeling_gemma2), (gemma3, modeling_gemma3)):
        assert config.query_pre_attn_scalar == int(default) == config.head_dim
        assert "self.scaling = config.query_pre_attn_scalar**-0.5" in inspect.getsource(module)


def test_worked_example_says_what_a_fixed_factor_costs_on_short_inputs():
    """The costs block under the worked example: "With `factor` fixed at 8, models not trained with it do worse even
    at $L$",
    chapter 8's section "A fixed factor costs on short inputs" ("raises the loss at $L$"), graded in this page's words
    (the saved run's numbers and grades: :func:`test_worked_example_names_two_costs_of_slowing_pairs`). The example's
    block comes before the costs' block, and both come before the heading "Terms for longer inputs" (read r201: the
    subsection that ties the terms together sits right under the three numbers' table, before the A to Z rows that
    lean on it)."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    text = page()
    (fixed,) = re.findall(
        r"and finds two costs\. With `factor` fixed at (\d+), models not trained with it do worse even at \$L\$:",
        text,
    )
    assert "Dividing by more than the stretch has a cost" not in text  # the one cost this page once gave both causes
    c8 = " ".join(chapter("08_extrapolation").split())
    assert f"In models not trained with it, a `factor` fixed at {fixed} raises the loss at $L$" in c8
    # the subsection that fits the terms together first, with the example and the costs, then the term table
    order = [
        "## Longer inputs",
        "Three numbers are easy to mix up:",
        EXAMPLE,
        f"<summary>{WE}</summary>",
        "Slowing pairs has costs",
        "(glossary-longer-terms)=\n### Terms for longer inputs",
        "### Temperature and query scales",
    ]
    assert [raw.index(mark) for mark in order] == sorted(raw.index(mark) for mark in order), order


# ---- rows for later designs, Qwen2.5-VL's time axis, the tables' order, the worked example's two costs ----


def test_rows_for_path_dape_and_pose_follow_their_chapters():
    """Rows for designs the chapters name: PaTH attention (chapter 11: "replaces RoPE's fixed rotations by a product of
    transforms, one per token between key and query, each computed from its token", "a data-dependent scheme whose
    transforms depend on one token each"); DAPE (chapter 11: "feeds the attention scores and a bias such as KERPLE's
    through an MLP"); PoSE (chapter 8: "skips position indices ahead so that a short window meets the distances of a
    longer one"; the row says the skip, the block under the table what it is for). Each row links its chapter; the
    citations are test_each_rows_citations_are_its_own_bib_entries's."""
    c8, c11 = chapter("08_extrapolation"), chapter("11_learned_position")
    assert (
        "PaTH attention, in the last block of the appendix, replaces RoPE's fixed rotations by a product of transforms,"
        " one per token between key and query, each computed from its token." in c11
    )
    assert "So do the authors of PaTH attention" in c11 and "a data-dependent scheme whose transforms depend on" in c11
    assert (
        "| PaTH attention | | a data-dependent encoding: RoPE's fixed rotations"
        " replaced by a"
        " product of transforms, one for each token between key and query, each computed from its token |"
        in row("PaTH attention")
    )
    assert "feeds the attention scores and a bias such as KERPLE's through an MLP." in c11
    assert (
        "data-adaptive position encoding: an MLP computes a bias from the attention scores and a"
        " position bias such as KERPLE's |" in row("DAPE")
    )
    assert "which skips position indices ahead so that a short window meets the distances of a longer one." in c8
    assert (
        "| a way to fine-tune for inputs longer than $L$ on windows of $L$ tokens whose position indices skip ahead |"
        in row("PoSE")
    )
    assert (
        "- *PoSE* skips position indices ahead within each window, so that the window meets the distances of a longer"
        " input." in block(MORE_LONGER)
    )
    for term, name in (
        ("PaTH attention", "11_learned_position"),
        ("DAPE", "11_learned_position"),
        ("PoSE", "08_extrapolation"),
    ):
        assert f"<../notebooks/{name}>`" in row(term), term


def test_mrope_row_qwen2_5_vl_moves_time_a_fixed_number_of_positions_per_second():
    """The Encodings block: "For video, Qwen2.5-VL advances *M-RoPE*'s time axis by a fixed number of positions per
    second of video", as chapter 10 says ("steps the time ids by `tokens_per_second` per second of video"):
    transformers' Qwen2.5-VL `get_rope_index`, given one video at three frame spacings, steps each token's time id by
    `tokens_per_second` times the seconds between frames, so the same number of positions per second every time."""
    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl

    assert row("M-RoPE (multimodal RoPE)").endswith(  # fix pass 272 (read r269b #8): the config field named last
        "as in Qwen2-VL; the config field `mrope_section` gives each axis's number of pairs |"
        " {doc}`10 <../notebooks/10_rope_today>` |"
    )
    assert (
        "- For video, Qwen2.5-VL advances *M-RoPE*'s time axis by a fixed number of positions per second of video."
        in models_block("## Encodings")
    )
    assert "For video, Qwen2.5-VL steps the time ids by `tokens_per_second` per second of video" in chapter(
        "10_rope_today"
    )
    cfg = transformers.Qwen2_5_VLConfig()
    model = modeling_qwen2_5_vl.Qwen2_5_VLModel
    holder = type("Holder", (), {"config": cfg, "get_vision_position_ids": model.get_vision_position_ids})()
    frames, height, width = 3, 4, 4
    merge = cfg.vision_config.spatial_merge_size
    video = frames * (height // merge) * (width // merge)
    ids = torch.zeros(1, video + 4, dtype=torch.long)
    kinds = torch.tensor([[0, 0] + [2] * video + [0, 0]])  # text, video, text
    per_second = set()
    for seconds in (0.5, 1.0, 2.0):  # seconds between two frames of the grid
        positions, _ = model.get_rope_index(
            holder,
            ids,
            kinds,
            video_grid_thw=torch.tensor([[frames, height, width]]),
            second_per_grid_ts=torch.tensor([seconds]),
        )
        times = sorted(set(positions[0, 0, 2 : 2 + video].tolist()))
        steps = {b - a for a, b in zip(times, times[1:])}
        assert len(times) == frames and len(steps) == 1, (seconds, times)
        per_second.add(steps.pop() / seconds)
    assert per_second == {float(cfg.vision_config.tokens_per_second)}, per_second


def test_alphabetical_tables_and_the_forgetting_transformers_place():
    """The Encodings, Maths, Attention and longer-input terms tables list their terms in alphabetical order, ignoring
    case and the characters other than letters, digits, spaces and hyphens, as the Forgetting Transformer row, between
    FIRE and gate, now does."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")

    def terms(heading: str) -> list[str]:
        section = raw[raw.index(heading) :]
        table = section[section.index("| English |") :]
        lines = table[: table.index("\n\n")].splitlines()[2:]
        return [line.split(" | ")[0][2:] for line in lines]

    def key(term: str) -> str:
        return re.sub(r"[^0-9a-z -]", "", term.lower())

    for heading in (
        "## Encodings",
        "## Maths and precision",
        "## Attention, kernels and models",
        "### Terms for longer inputs",
    ):
        found = terms(heading)
        assert len(found) > 8 and found == sorted(found, key=key), (heading, found)
    encodings = terms("## Encodings")
    assert encodings.index("FIRE") + 1 == encodings.index("Forgetting Transformer") == encodings.index("gate") - 1


def test_worked_example_names_two_costs_of_slowing_pairs():
    """The costs block names where the costs are measured and what each run shows (read r178: the main line had said
    only "chapter 8 measures two of them"; read r181: "slowing pairs that do not need it" overstated what dynamic PI's
    run isolates; read r182: dynamic YaRN differs from dynamic PI also by its attention factor; read r186: the main
    line's four sentences on chapter 8 repeated this block and named a cost with no mechanism, so the main line gives
    the mechanism, what slowing a fast pair does to its angles, and leaves chapter 8's runs to this block, which adds
    what they do not isolate: "It also slows pair 2, the third fast pair, less than dynamic PI does, so these runs do
    not show which fast pair's slowing raises the loss").
    From the saved run: at L the stretch is 1, so every distance is one of training's; the fixed-factor arms (PI×8 and
    YaRN×8, run zero-shot) each have a higher loss than plain RoPE in every seed, while the arms trained with the
    factor, PI×8-FT and YaRN×8-FT, do not ("models not trained with that factor" is needed). At 2L dynamic PI divides
    every pair by the stretch, 2, fast pair 0 included, and dynamic YaRN keeps pairs 0 and 1, the two fastest; dynamic
    PI's loss beyond L is above plain RoPE's and dynamic YaRN's below it, in every seed, with or without YaRN's
    attention factor.
    The costs block: "... and finds two costs. With `factor` fixed at 8, models not trained with it do worse even
    at $L$: PI×8's loss there *breaks*, and YaRN×8's is only slightly higher than plain RoPE's. *Dynamic PI* divides
    every pair by just the stretch, yet at $2L$ its mean loss on the filler tokens from position $L$ on is above plain
    RoPE's, about 1.7 nats against 1.1. *Dynamic YaRN* with betas 2/1 keeps pairs 0 and 1, the two fastest, and its loss
    there is about 0.73, *fine*, with or without its attention factor." At L the fixed factor 8 raises the loss in
    every seed, PI×8's
    above ln 28 (*breaks*, the Words row's threshold), in every seed and on the mean over seeds, and YaRN×8's by less
    than a fifth of a nat (read r220: its *raised* held by a few thousandths of a nat in one seed) (so "raises", chapter
    8's verb, is not this page's grade for PI×8). "Slightly" (read r203, chapter 8's "YaRN×8 only slightly"): YaRN×8's
    mean over seeds lies less than a tenth of a nat above the *fine* bar, under a twentieth of the way from that bar to
    *breaks*. The primer's "They differ in which other pairs they slow, and when": in the worked example, the three
    rules slow different sets of Llama 3.1's pairs at 2L (when is the effective factor column's test)."""
    text = page()
    assert (
        # fix pass 277 (read r274a #5, unclear: "there" pointed once to L and once to 2L): each names its length
        "and finds two costs. With `factor` fixed at 8, models not trained with it do worse even at $L$: PI×8's loss"
        " at $L$ *breaks*, over 3 nats above plain RoPE's in every seed, while YaRN×8's is above plain RoPE's by 0.09"
        " to 0.18 nats. *Dynamic PI* divides every pair by"
        " just the stretch, yet"
        " at $2L$"
        " its mean loss on the filler tokens from position $L$ on is above plain RoPE's, about 1.7 nats against 1.1."
        # fix pass 281 (read r277a #3, unclear: the block named dynamic PI's cost and not what it buys): its retrieval
        # in the same run, from the saved `passkey` metric, the share found in probes of each length (checked below)
        " In the same run it retrieves far better: in probes of $2L$, $4L$ and $8L$ tokens it finds 99 % or more of the"
        " passkeys, plain RoPE about 77, 56 and 20 %, on average over the seeds."
        # fix pass 288 (read r283a #4, unclear: the betas were not named, and with betas 32/1 pair 1 is divided):
        # "with betas 2/1", the main run's (checked below on the saved config and on the 32/1 run's divisors)
        " *Dynamic YaRN* with betas 2/1 keeps pairs 0 and 1, the two fastest, and its loss at $2L$ is about 0.73,"
        " *fine*, with or without its attention factor." in text
    )
    run = load_results("extrapolation", check=False)
    config, metrics = run["config"], run["metrics"]
    L = config["train_length"]
    d = config["model"]["d_model"] // config["model"]["n_heads"]  # chapter 8's head width, 16: eight pairs
    theta = posenc.rope_inv_freq(d).double()
    rule, seq_len = experiment_scaling(config, "pi", 2 * L)  # dynamic PI at 2L
    divided = theta / rule.inv_freq(d, seq_len=seq_len)[0].double()
    assert torch.allclose(divided, torch.full_like(divided, 2.0), rtol=1e-6), divided  # every pair, by the stretch
    assert (L - 1) * float(theta[0]) >= 2 * math.pi  # pair 0 is fast: dynamic PI slows a fast pair too
    # dynamic YaRN at 2L, as run (its betas 2/1, the stretch as `factor`): pairs 0 and 1 kept, and they are the two
    # fastest; every other pair divided by more than 1; the run without its attention factor slows the same pairs
    for overrides in ({}, config["sensitivity"]["yarn t1"]):
        extra = {k: v for k, v in overrides.items() if k != "scaling"}
        rule, seq_len = experiment_scaling(config, "yarn", 2 * L, **extra)
        yarn_divided = theta / rule.inv_freq(d, seq_len=seq_len)[0].double()
        kept = [i for i in range(d // 2) if abs(float(yarn_divided[i]) - 1) < 1e-6]
        assert kept == [0, 1] and bool((yarn_divided[2:] > 1 + 1e-3).all()), yarn_divided
    assert sorted(torch.argsort(theta, descending=True)[:2].tolist()) == [0, 1]  # "the two fastest"
    # fix pass 288 (read r283a #4): "with betas 2/1": the main run's betas; the 32/1 run divides pair 1, so the
    # sentence needs them
    assert (config["yarn"]["beta_fast"], config["yarn"]["beta_slow"]) == (2.0, 1.0)
    b32 = {k: v for k, v in config["sensitivity"]["yarn b32"].items() if k != "scaling"}
    assert (b32["beta_fast"], b32["beta_slow"]) == (32.0, 1.0)
    rule, seq_len = experiment_scaling(config, "yarn", 2 * L, **b32)
    b32_divided = theta / rule.inv_freq(d, seq_len=seq_len)[0].double()
    assert abs(float(b32_divided[0]) - 1) < 1e-6 and float(b32_divided[1]) > 1 + 1e-3, b32_divided
    assert config["sensitivity"]["yarn t1"] == {"scaling": "yarn", "attention_factor": 1.0}
    seeds = sorted(metrics["rope"])
    plain = [metrics["rope"][s]["loss_beyond"][str(2 * L)] for s in seeds]
    pi = [metrics["rope+pi"][s]["loss_beyond"][str(2 * L)] for s in seeds]
    assert len(seeds) == 5 and all(p > r for p, r in zip(pi, plain)) and sum(pi) > sum(plain), (pi, plain)
    assert config["sensitivity"]["pi fixed"] == {"scaling": "pi", "factor": 8.0}  # PI with `factor` fixed at 8
    fixed = [metrics["rope+pi fixed"][s]["loss_at_L"] for s in seeds]
    unscaled = [metrics["rope"][s]["loss_at_L"] for s in seeds]
    assert all(f > u for f, u in zip(fixed, unscaled)), (fixed, unscaled)
    # the block's sentences: both fixed-factor arms above plain RoPE at L in every seed ("do worse even at $L$"), and
    # at 2L dynamic PI above plain RoPE and dynamic YaRN below it (the loss beyond L); the fine-tuned arms, trained
    # with the factor, are not all above ("models not trained with it"). The main line says none of it
    section = example_section((ROOT / "book" / "glossary.md").read_text(encoding="utf-8"))
    visible = re.sub(r"<details>.*?</details>", " ", section, flags=re.S)
    assert "Chapter 8" not in visible and "loss" not in visible, visible
    # the attention factor is named in the costs block, which says the gap holds without it, not in the main line,
    # which comes before the term's row
    assert "attention factor" not in visible
    # "even at $L$": the stretch row's formula is 1 at L, and an input of L tokens meets only the distances of
    # training, 0 to L - 1, so no pair meets a new angle there
    (stretch_formula,) = re.findall(r"the trained length, \$([^$]+)\$:", row("stretch | 拉伸"))
    assert evaluate(stretch_formula, ell=L, L=L) == 1
    (main_factor,) = re.findall(
        r"With `factor` fixed at (\d+), models not trained with it do worse even at \$L\$:", block(COSTS)
    )
    # "It also slows pair 2, the third fast pair, less than dynamic PI does, so these runs do not show which fast
    # pair's slowing raises the loss": chapter 8's heads have three fast pairs, 0 to 2; at 2L dynamic YaRN divides
    # pair 2 by less than dynamic PI's 2 (and by more than 1), and every slow pair by the same 2 as dynamic PI, so the
    # two rules differ in the three fast pairs, all at once
    ((third, at_most, last_words),) = re.findall(
        # fix pass 243 (read r242 #1: pair 2 is fast by 0.3 %, (L - 1) theta_2 = 6.300 against 2 pi; checked below)
        # fix pass 244 (read r243b #1: "less than dynamic PI does" read as modifying "turns"): its own sentence
        r"It also slows pair 2, the (third) fast pair, less than dynamic PI does; that pair turns only just over once"
        r" in training\."
        # fix pass 273 (read r270b #1, omission: the saved run says more than the last sentence did): the dynamic runs
        # that keep pair 0, against dynamic PI, derived below from the saved run and the rules' divisors
        # fix pass 284 (read r280a #5, overstated mild: the sentence invited a causal reading from one run): "In this
        # saved run, the dynamic runs that keep pair 0 ..."
        r" In this saved run, the dynamic runs that keep pair 0 and slow pairs 1 and 2 by ([\d.]+) or less all stay"
        r" \*fine\* at \$2L\$; dynamic PI, which halves all three, does not\."
        # fix pass 282 (read r278b #6): the head and the divisors, checked below
        r" In chapter 8's heads, .+? with betas 32/1\."
        r" So these runs do not show (which fast"
        r" pair's slowing raises the loss)\.$",
        block(COSTS),
    )
    fast = [i for i in range(d // 2) if (L - 1) * float(theta[i]) >= 2 * math.pi]
    assert fast == [0, 1, 2] and {"third": 3}[third] == len(fast), fast
    turns_2 = (L - 1) * float(theta[2]) / (2 * math.pi)  # "only just over once": 1.003 turns over 0 to L - 1
    assert 1 < turns_2 < 1.01, turns_2
    pi_rule, pi_len = experiment_scaling(config, "pi", 2 * L)
    yarn_rule, yarn_len = experiment_scaling(config, "yarn", 2 * L)
    by_pi = theta / pi_rule.inv_freq(d, seq_len=pi_len)[0].double()
    by_yarn = theta / yarn_rule.inv_freq(d, seq_len=yarn_len)[0].double()
    assert 1 + 1e-3 < float(by_yarn[2]) < float(by_pi[2]) - 1e-3, (by_yarn, by_pi)
    assert torch.allclose(by_yarn[3:], by_pi[3:], rtol=1e-6), (by_yarn, by_pi)  # the slow pairs: the same
    differ = [i for i in range(d // 2) if abs(float(by_yarn[i] - by_pi[i])) > 1e-6]
    assert differ == fast and last_words.startswith("which fast pair"), differ
    # fix pass 273 (read r270b #1): "Of the dynamic runs, those that keep pair 0 and slow pairs 1 and 2 by 1.5 or less
    # all stay *fine* at $2L$; dynamic PI, which halves all three, does not": every RoPE run of the saved results whose
    # rule is dynamic at 2L (no fixed `factor`, not fine-tuned), its divisors from the rule it ran; fine as the Words
    # of chapter 8's experiment define it, within a tenth of a nat of the trigram's mean at 2L, in every seed
    trigram_2l = sum(metrics["trigram"][s]["loss_beyond"][str(2 * L)] for s in metrics["trigram"]) / len(
        metrics["trigram"]
    )
    # fix pass 286 (read r281b #6): the row's bound is strict, "below the mean plus a tenth", as chapter 8's grading
    assert "a loss below the *trigram baseline*'s mean plus a tenth of a nat" in row("fine (loss)")
    base_scaling = {"rope+pi": "pi", "rope+yarn": "yarn", "rope+dynamic": "dynamic"}
    dynamic_runs = dict.fromkeys(base_scaling)
    for name, overrides in config["sensitivity"].items():
        if "factor" not in overrides or overrides["scaling"] == "dynamic":  # dynamic NTK's factor is no fixed stretch
            dynamic_runs[f"rope+{name}"] = overrides
    assert set(dynamic_runs) == {a for a in metrics if a.startswith("rope+")} - {
        "rope+pi fixed",
        "rope+yarn fixed",
        "rope+pi ft",
        "rope+yarn ft",
    }, sorted(dynamic_runs)
    keepers, largest = [], 0.0
    for arm, overrides in dynamic_runs.items():
        scaling = base_scaling.get(arm) or overrides["scaling"]
        extra = {k: v for k, v in (overrides or {}).items() if k != "scaling"}
        rule, seq_len = experiment_scaling(config, scaling, 2 * L, **extra)
        divisors = theta / rule.inv_freq(d, seq_len=seq_len)[0].double()
        fine_seeds = [metrics[arm][s]["loss_beyond"][str(2 * L)] < trigram_2l + 0.1 for s in seeds]
        if abs(float(divisors[0]) - 1) < 1e-6:  # keeps pair 0
            keepers.append(arm)
            largest = max(largest, float(divisors[1:3].max()))
            assert float(divisors[1:3].max()) <= float(at_most) + 1e-4 and all(fine_seeds), (arm, divisors, fine_seeds)
        else:
            assert arm == "rope+pi" and torch.allclose(divisors[:3], torch.full((3,), 2.0, dtype=torch.float64))
            assert not any(fine_seeds), (arm, fine_seeds)  # "does not" stay fine, in any seed
    assert len(keepers) == len(dynamic_runs) - 1 >= 4, keepers  # every other dynamic run keeps pair 0
    assert abs(largest - float(at_most)) < 1e-3, largest  # "1.5 or less": the largest such divisor is 1.5 itself
    # fix pass 282 (read r278b #6, unclear: "1.5 or less" had no head and no divisors): the head and each run's
    # divisors of pairs 1 and 2 at 2L, as rounded on the page, from the rules the runs ran
    costs = " ".join(block("Slowing pairs has costs: what chapter 8 measured").split())
    ((width, head_base, listed),) = re.findall(
        r"In chapter 8's heads, (\d+) wide with base ([\d ]+), these runs divide pairs 1 and 2 at \$2L\$ by (.+?)\. So",
        costs,
    )
    assert int(width) == d and torch.allclose(
        theta, posenc.rope_inv_freq(d, float(head_base.replace(" ", ""))).double()
    )
    arms = {"dynamic NTK": "rope+dynamic", "factor 2": "rope+dynamic f2", "dynamic YaRN": "rope+yarn"}
    arms |= {"betas 32/1": "rope+yarn b32"}
    pairs = re.findall(r"([\d.]+) and ([\d.]+) (?:under|with) ([\w /]+?)(?:,|$)", listed.replace(", and ", ", "))
    assert [p[2] for p in pairs] == list(arms), pairs
    for one, two, name in pairs:
        overrides = dynamic_runs[arms[name]] or {}
        scaling = base_scaling.get(arms[name]) or overrides["scaling"]
        extra = {k: v for k, v in overrides.items() if k != "scaling"}
        rule, seq_len = experiment_scaling(config, scaling, 2 * L, **extra)
        divisors = theta / rule.inv_freq(d, seq_len=seq_len)[0].double()
        for said_div, got in ((one, divisors[1]), (two, divisors[2])):
            assert round(float(got), len(said_div.split(".")[1]) if "." in said_div else 0) == float(said_div), (
                name,
                divisors,
            )
    for arm in ("pi fixed", "yarn fixed"):
        assert config["sensitivity"][arm]["factor"] == float(main_factor), arm
        at_l = [metrics[f"rope+{arm}"][s]["loss_at_L"] for s in seeds]
        assert all(a > u for a, u in zip(at_l, unscaled)), (arm, at_l, unscaled)
    for arm in ("pi", "yarn"):  # the same rules fine-tuned with the factor: not above plain RoPE in every seed
        tuned = [metrics[f"rope+{arm} ft"][s]["loss_at_L"] for s in seeds]
        assert not all(x > u for x, u in zip(tuned, unscaled)), (arm, tuned, unscaled)
    assert all(p > r for p, r in zip(pi, plain))  # "at $2L$ dynamic PI's loss is above plain RoPE's"
    # "dynamic YaRN ... its loss is below plain RoPE's", with its attention factor and without (the costs block's "with
    # or without"), in every seed
    for arm in ("rope+yarn", "rope+yarn t1"):
        yarn_2l = [metrics[arm][s]["loss_beyond"][str(2 * L)] for s in seeds]
        assert all(y < r for y, r in zip(yarn_2l, plain)), (arm, yarn_2l, plain)
    # the block's numbers, means over the seeds: "about 1.7 nats against 1.1", "about 0.73"
    mean_2l = {
        arm: sum(metrics[arm][s]["loss_beyond"][str(2 * L)] for s in seeds) / len(seeds)
        for arm in ("rope+pi", "rope", "rope+yarn", "rope+yarn t1")
    }
    ((pi_said, plain_said, yarn_said),) = re.findall(
        r"above plain RoPE's, about ([\d.]+) nats against ([\d.]+)\. In the same run it retrieves far better: .*?"
        r" \*Dynamic YaRN\* with betas 2/1 keeps pairs 0 and 1, the two"
        r" fastest, and its loss at \$2L\$ is about ([\d.]+), \*fine\*, with or without its attention factor\.",
        text,
    )
    assert abs(mean_2l["rope+pi"] - float(pi_said)) < 0.05 and abs(mean_2l["rope"] - float(plain_said)) < 0.05, mean_2l
    for arm in ("rope+yarn", "rope+yarn t1"):
        assert abs(mean_2l[arm] - float(yarn_said)) < 0.005, mean_2l
    # fix pass 281 (read r277a #3): "In the same run it retrieves far better: in probes of $2L$, $4L$ and $8L$ tokens it
    # finds 99 % or more of the passkeys, plain RoPE about 77, 56 and 20 %, on average over the seeds": the saved
    # `passkey` metric, keyed by the probe's length (chapter 8's table reads the same), not `passkey_by_distance`
    ((lengths, at_least, plain_pcts),) = re.findall(
        r"In the same run it retrieves far better: in probes of ((?:\$\d+L\$(?:, | and ))+\$\d+L\$) tokens it finds"
        r" (\d+) % or"
        r" more of the passkeys, plain RoPE about (\d+, \d+ and \d+) %, on average over the seeds\.",
        text,
    )
    multiples = [int(m) for m in re.findall(r"\$(\d+)L\$", lengths)]
    assert multiples == [2, 4, 8], lengths
    from posenc.experiments import passkey as passkey_module

    assert 'out["passkey"][str(n)] = evaluate_passkey(model, corpus, length=n,' in inspect.getsource(passkey_module)
    found = {
        arm: [sum(metrics[arm][s]["passkey"][str(k * L)] for s in seeds) / len(seeds) for k in multiples]
        for arm in ("rope+pi", "rope")
    }
    assert min(found["rope+pi"]) >= int(at_least) / 100, found
    said = [int(x) for x in re.split(r", | and ", plain_pcts)]
    assert [round(100 * f) for f in found["rope"]] == said, found
    assert all(p > r + 0.2 for p, r in zip(found["rope+pi"], found["rope"])), found  # "far better"
    # the grades, as the Words of chapter 8's experiment define them: breaks above ln 28; fine below the trigram's mean
    # of the trigram's mean at the same length, or below; raised between
    assert config["sensitivity"]["yarn fixed"]["factor"] == 8.0
    yarn_fixed = [metrics["rope+yarn fixed"][s]["loss_at_L"] for s in seeds]
    trigram = sum(metrics["trigram"][s]["loss_at_L"] for s in metrics["trigram"]) / len(metrics["trigram"])
    (breaks,) = re.findall(r"uniform guessing among all (\d+) tokens", row("breaks (loss)"))
    # fix pass 286 (read r281b #6): the row's bound is strict, "below the mean plus a tenth", as chapter 8's grading
    assert "a loss below the *trigram baseline*'s mean plus a tenth of a nat" in row("fine (loss)")
    ceiling, fine = math.log(int(breaks)), trigram + 0.1

    def grade(loss: float) -> str:
        return "breaks" if loss > ceiling else "fine" if loss < fine else "raised"

    # read r220: the page grades PI×8 alone (*breaks*, above ln 28 by half a nat or more in every seed); YaRN×8's
    # *raised* held by a few thousandths of a nat in one seed, so the page says "only slightly higher" instead
    assert {grade(x) for x in fixed} == {"breaks"} and grade(sum(fixed) / len(fixed)) == "breaks", fixed
    assert min(fixed) - math.log(28) > 0.5, fixed
    # dynamic YaRN's "*fine*" at 2L, with and without its attention factor: within a tenth of a nat of the trigram's
    # mean at the same length, 2L, in every seed
    trigram_2l = sum(metrics["trigram"][s]["loss_beyond"][str(2 * L)] for s in metrics["trigram"]) / len(
        metrics["trigram"]
    )
    for arm in ("rope+yarn", "rope+yarn t1"):
        assert all(metrics[arm][s]["loss_beyond"][str(2 * L)] <= trigram_2l + 0.1 for s in seeds), arm
    # fix pass 224 (read r223 #1: "only slightly higher", beside the graded words, read as *fine*, while YaRN×8's
    # mean at L is above the *fine* bar): the two gaps as numbers, each in every seed (asserted just below)
    assert (
        "PI×8's loss at $L$ *breaks*, over 3 nats above plain RoPE's in every seed, while YaRN×8's is above plain"
        " RoPE's by 0.09 to 0.18 nats." in text
    )
    # fix pass 225 (read r224 #7: "under 0.2" was a bound set just above seed 1's 0.184): the five seeds' spread
    assert "only slightly higher than plain RoPE's" not in text
    assert "YaRN×8's is slightly *raised*" not in text  # read r220: a grade chapter 8 does not give it
    # "only slightly higher than plain RoPE's" (read r203, r220): chapter 8's "YaRN×8 only slightly"; in every seed
    # YaRN×8's loss at L is above plain RoPE's by 0.09 to 0.18 nats, while PI×8's is above it by over 3 nats;
    # its mean lies within a tenth of a nat above the fine bar, under a twentieth of the way from that bar to breaks
    assert "YaRN×8 only slightly" in " ".join(chapter("08_extrapolation").split())
    # fix pass 265 (read r264b #7, assert fitted to one run: "0 < y - r < 0.2" was a bound set just above seed 1's
    # 0.184 and said no more than the exact check below): removed; the page's "0.09 to 0.18 nats" is the seeds' own
    # smallest and largest gap, read from the saved run
    gaps = [y - r for y, r in zip(yarn_fixed, unscaled)]
    assert (round(min(gaps), 2), round(max(gaps), 2)) == (0.09, 0.18), gaps  # "by 0.09 to 0.18 nats"
    assert all(p - r > 3 for p, r in zip(fixed, unscaled)), (fixed, unscaled)
    yarn_mean = sum(yarn_fixed) / len(yarn_fixed)
    assert 0 < yarn_mean - fine < 0.1 and (yarn_mean - fine) / (ceiling - fine) < 0.05, (yarn_mean, fine, ceiling)
    assert "raises the loss at $L$" not in text  # chapter 8's verb; here a grade would read it as *raised*
    # the worked example's table: PI divides every pair by $s$; dynamic NTK keeps pair 0 and divides the slowest by
    # $1 + s(\ell/L - 1)$ (the values: test_longer_inputs_main_line_gives_the_slowest_pairs_divisors)
    example = re.sub(r"\s+", " ", block(WE))
    assert "| *position interpolation* | divides every pair's frequency by 8 | 8 at any length |" in example
    assert "*Dynamic NTK* sets its effective factor to $1 + s(\\ell/L - 1)$ past $L$." in block(DYN)
    d, base, L, s = llama31_head()
    plain_theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    slowed = {}
    for kind, extra in (("linear", {}), ("llama3", {"low_freq_factor": 1.0, "high_freq_factor": 4.0}), ("dynamic", {})):
        freqs, _ = posenc.rope_scaled_inv_freq(
            d, base, rope_type=kind, factor=s, original_max_position_embeddings=L, seq_len=2 * L, **extra
        )
        slowed[kind] = tuple(i for i in range(d // 2) if float(plain_theta[i] / freqs.double()[i]) > 1 + 1e-5)
    assert len(set(slowed.values())) == 3, slowed


# ---- the primer's dynamic NTK and kept and ramped pairs, chapter 10's query temperature, the italics promise ----


def test_primer_defines_dynamic_ntks_scale_and_kept_and_ramped_pairs_before_the_worked_example():
    """The block after the worked example: "*Dynamic NTK* sets its effective factor to $1 + s(\\ell/L - 1)$ past
    $L$." The rows "kept (pair)" and "ramp" define the table's *kept* and *ramps*. The block's formula is the
    dynamic NTK row's (:func:`test_dynamic_ntk_formula_and_the_field_transformers_reads` runs it against transformers)
    and gives the worked example's 9 at 2L with s = 8, what transformers' `dynamic` divides the slowest pair by. In
    transformers' `llama3` (Llama 3.1's head and bounds) and `yarn` (its default betas), over three factors, each pair's
    frequency is its own (kept), its own over s (divided) or a blend w theta + (1 - w) theta/s with 0 < w < 1, and the
    blended pairs lie between the kept and the divided ones."""
    before = block(DYN)
    (primer,) = re.findall(r"\*Dynamic NTK\* sets its effective factor to \$([^$]+)\$ past \$L\$\.", before)
    ((_, formula),) = re.findall(
        r"- \*Dynamic NTK\*'s effective factor is (\d+) up to \$L\$, then \$([^$]+)\$\.",
        models_block("### Terms for longer inputs"),
    )
    assert primer == formula, (primer, formula)
    assert "| a pair whose frequency a RoPE scaling leaves unchanged |" in row("kept (pair)")
    assert (
        "| in *NTK-by-parts*, YaRN and `llama3`, the pairs between those kept and those divided by $s$, which get a"
        " blend of the two"
        " frequencies |" in row("ramp")
    )
    d, base, L, s = llama31_head()
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    assert abs(evaluate(primer, s=s, ell=2 * L, L=L) - 9) < 1e-12  # the table's "9 at this length"
    dyn = hf_inv_freq(d, max_position_embeddings=L, seq_len=2 * L, rope_type="dynamic", rope_theta=base, factor=s)
    assert abs(float(theta[-1] / dyn.double()[-1]) - 9) < 1e-4 * 9  # float32 frequencies
    for factor in (4.0, 8.0, 32.0):
        rules = {
            "llama3": hf_llama3(d, base, factor, 4.0, 1.0, L),
            "yarn": hf_inv_freq(
                d, rope_type="yarn", rope_theta=base, factor=factor, original_max_position_embeddings=L
            ),
        }
        for name, freqs in rules.items():
            w = (freqs.double() - theta / factor) / (theta - theta / factor)  # 1: kept, 0: divided by s
            assert bool(((w > -1e-5) & (w < 1 + 1e-5)).all()), (name, factor)  # a blend of the two, or one of them
            kept = (w > 1 - 1e-5).nonzero().flatten().tolist()
            divided = (w < 1e-5).nonzero().flatten().tolist()
            ramped = [i for i in range(d // 2) if i not in kept + divided]
            assert kept and ramped and divided, (name, factor)
            assert max(kept) < min(ramped) and max(ramped) < min(divided), (name, factor, ramped)


def test_chapter_10s_query_temperature_multiplies_the_logits():
    """The row "Llama 4's query temperature $\\tau$", whose fourth column, "multiplier of $q \\cdot k$", is $\\tau$, and
    the opening's special cases, the *temperature*, Llama 4's *query temperature* and the *attention factor*, and "A
    larger multiplier sharpens attention": though called a temperature, it multiplies. Read r200 reopened the
    decision to keep the word clash off the main line for one sentence, the trap most likely to mislead, right after
    the temperature's; read r220 kept the word temperature for the divisor: "Llama 4's *query temperature* $\\tau$
    multiplies $q \\cdot k$ despite its name: a larger $\\tau$ sharpens." The main line of "Temperature and query
    scales", before its table, names no chapter and no "Careful", and tau only in that sentence. Chapter 10's words;
    transformers' Llama 4 multiplies the queries by its scales, so each logit by tau, a tau of 1 or more; and a larger
    tau lowers the entropy of the softmax of random logits and raises the top key's weight, that is, sharpens attention,
    while a smaller one would do the reverse."""
    from transformers.models.llama4 import modeling_llama4

    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("### Temperature and query scales") : raw.index("## Attention, kernels and models")]
    main = re.sub(r"\s+", " ", section[: section.index("| English |")])
    assert "Chapter 10" not in main and "Careful" not in main, main
    assert not re.findall(r"[Cc]hapters? \d+", main), main
    ((larger, direction, _, _, t_verb, tau_verb),) = re.findall(SCALES_OPENING, main)
    assert larger == "larger", larger
    # the query temperature, a temperature by name, is one of the scales that multiply: the opening's special cases are
    # the *temperature*, Llama 4's *query temperature* and the *attention factor* (read r192: the old "whatever its
    # name" left the reader to find which; read r199: each in a sentence of its own, all multiplying; read r200: the
    # query temperature's sentence, the word's trap, on the main line, its details in the word block under the table)
    # read r220: "multiplies $q \cdot k$ despite its name", the word temperature left to the divisor's sentence
    # fix pass 273 (reads r270a #5 and r270b #3, unclear: three conventions stacked before the table): one sentence
    # on names that point the wrong way, the temperature's verb, then tau's; each direction follows from the rule,
    # "a larger multiplier sharpens" (computed below for tau), and the attention factor is its row's alone
    names_sentence = (
        "A name can point the wrong way: a *temperature* $t$ divides $q \\cdot k$, but Llama 4's *query temperature*"
        " $\\tau$ multiplies it."  # fix pass 281 (main line kept at its length): the column's header names it
    )
    assert main.count("\\tau") == 1 and main.count(names_sentence) == 1, main  # tau in that sentence alone
    assert (t_verb, tau_verb) == ("divides", "multiplies"), (t_verb, tau_verb)
    # fix pass 241: the softmax scale, italic where first used, precedes the two names (the compounding sentence)
    # fix pass 274 (reads r271a #6 and r271b #5): the attention factor first, in the opening's conditions clause
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: caveats before the idea): the opening no longer names the
    # attention factor or the softmax scale; its conditions and the compounding are the bullets' of the block
    # :data:`SCALES_CAVEATS`
    named = ["temperature", "query temperature"]
    assert re.findall(r"\*([\w ]+)\*", main) == named, main
    assert main.count("attention factor") == 0, main
    tau_direction = direction  # a multiplier: "a larger multiplier sharpens" holds for tau as for any other
    assert "whatever its name" not in main
    assert "The word clashes" not in page(), main
    assert letters("temperature") == TEMPERATURE_LETTERS
    assert "a factor of 1 or more on the queries" in row("Llama 4's query temperature $\\tau$ (temperature tuning)")
    assert cells("Llama 4's query temperature $\\tau$ (temperature tuning)")[3] == "$\\tau$"
    assert "Llama 4's query temperature" in chapter("10_rope_today")
    assert "query_states = (query_states * attn_scales)" in inspect.getsource(modeling_llama4.Llama4TextAttention)
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 50, 16, generator=g, dtype=torch.float64)

    def entropy(tau: float) -> torch.Tensor:
        logits = (tau * q) @ k.T  # the queries scaled: every logit multiplied by tau
        assert torch.allclose(logits, tau * (q @ k.T), rtol=1e-12, atol=1e-12)
        return attention_entropy(logits)

    top = (q @ k.T).argmax(-1, keepdim=True)
    for tau in (1.1, 1.5, 3.0):
        sharper = bool((entropy(tau) < entropy(1.0)).all())
        assert sharper == (direction == "sharpens") == (tau_direction == "sharpens"), tau
        assert bool((entropy(1 / tau) > entropy(1.0)).all()), tau
        gained = torch.softmax(tau * (q @ k.T), -1).gather(-1, top) > torch.softmax(q @ k.T, -1).gather(-1, top)
        assert bool(gained.all()), tau  # the top-scoring key gains weight


def test_every_italic_term_has_its_own_row():
    """The page's promise, "A term in italics has its own row, sometimes in another section; the index just below
    finds each." (read r192 had added "so do some words left plain, such
    as logit", as the promise read as its converse; read r201: that clause was the first prose a learner met and told
    them nothing they needed, so it is cut; fix pass 266, read r265b #4: where the row is, as Core terms' rows use
    terms whose rows are in later sections): every italic phrase (not bold) names a row of one of the
    term tables, whose first cell, or a part of it between commas and parentheses, is the phrase, or holds it as whole
    words. A plural or a verb form is read as its row's term (keeps: kept, ramps: ramp, gates: gate). So an italic
    "*CPD kernel*", which has no row, fails; "*turns in $L$*" has one. *decoder*, used in Core terms before its row in
    the Attention section, is italic there, and the causal mask row, its first use, says what the book means by it, in
    the decoder row's words. "Sometimes in another section": *decoder*'s row is in the Attention section. "The index
    just below finds each": the index is the next block after the opening paragraphs, and the row of every italic
    phrase is one of its entries."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    # fix pass 266 (read r265b #4, unclear: the promise said a row exists, not where): the section, and the index
    assert (
        "English. A term in italics has its own row, sometimes in another section; the index just below finds each."
        " {ref}`Letters" in page()
    ) and "left plain" not in page()
    opening = raw[: raw.index("<details>")]
    assert "A term in italics" in opening and raw[len(opening) :].startswith(
        "<details><summary>Index, A to Z</summary>"
    )
    attention = raw[raw.index("(glossary-attention)=") :]
    assert "\n| decoder | 解码器 |" in attention[: attention.index("\n(glossary-", 1)]  # another section than Core's
    core = raw[raw.index("## Core terms") : raw.index("(glossary-encodings)=")]
    first = core.index("decoder")
    assert core[first - 1 : first + len("decoder") + 1] == "*decoder*", core[first - 80 : first + 40]
    assert (
        "| causal mask | 因果掩码 | hides every key that comes after its query; the book calls attention with this mask"
        " a *decoder* |" in raw
    )
    assert "| decoder | 解码器 | in this book, causal attention: each token sees itself and earlier tokens |" in raw
    terms, names = [], {}
    for table in re.findall(r"^\| English \|.*?(?=\n\n|\Z)", raw, flags=re.S | re.M):
        terms += [line.split(" | ")[0][2:].lower() for line in table.splitlines()[2:]]
        names.update({line.split(" | ")[0][2:].lower(): line.split(" | ")[0][2:] for line in table.splitlines()[2:]})
    assert len(terms) > 120, len(terms)
    forms = {
        "keeps": "kept",
        "ramps": "ramp",
        "gates": "gate",
        "attention sinks": "attention sink",
        "fast pairs": "fast pair",
    }
    italic = set(re.findall(r"(?<![*\w])\*([^*\n]+?)\*(?![*\w])", raw))
    assert len(italic) > 30, italic

    def row_of(phrase: str) -> str | None:
        phrase = forms.get(phrase.lower(), phrase.lower())
        for term in terms:
            parts = {part.strip() for part in re.split(r"[(),]", term)}
            if phrase == term or phrase in parts or re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", term):
                return term
        return None

    def has_row(phrase: str) -> bool:
        return row_of(phrase) is not None

    missing = sorted(phrase for phrase in italic if not has_row(phrase))
    assert not missing, missing
    assert has_row("turns in $L$") and not has_row("CPD kernel")  # a row of its own; no row
    # "the index just below finds each": each italic phrase's row is an entry of the index, under the row's name as
    # the index writes it (code marks dropped, tau and L as letters)
    entries = set(re.findall(r"\{ref\}`([^<`]+) <glossary-[\w-]+>`", block("Index, A to Z")))
    for phrase in italic:
        name = names[row_of(phrase)].replace("`", "").replace("$\\tau$", "τ").replace("$L$", "L")
        assert name in entries, (phrase, name)


# ---- the worked example's dynamic NTK cell, chapter 8's costs block, the opening and the index ----------------------


def test_worked_examples_dynamic_ntk_cell_and_its_formula_in_the_block():
    """The worked example's table: dynamic NTK "keeps pair 0, divides the slowest by 9 and each pair between by less".
    The block after it: "At $2L$ with $s = 8$, that is $9 = 1 + 8(2 - 1)$, while the stretch is 2. It then divides pair
    $i$'s frequency by $9^{2i/(d-2)}$: by 1 for pair 0 and by 9 for the slowest." In Llama 3.1's head (posenc's copy of
    its config), transformers' `dynamic` at 2L, with `max_position_embeddings` set to L: the page's exponent, read and
    evaluated, gives every pair's divisor; the block's 9 is the primer's formula at 2L."""
    assert (
        f"| *dynamic NTK* | keeps pair 0, divides the slowest by 9 and each pair between by less | {DYN_NTK_CELL} |"
        in block(WE)
    )
    text = block(DYN)
    ((s, scale, one, factor, stretch, word),) = re.findall(
        r"At \$2L\$ with \$s = (\d+)\$, that is \$(\d+) = (\d+) \+ (\d+)\(2 - 1\)\$, while the stretch is (\d+)\."
        r" In general it divides pair \$i\$'s frequency by \$F\^\{[^$]+\}\$, with \$F\$ its effective factor; here"
        r" by \$9\^\{[^$]+\}\$: by 1 for pair 0 and by 9 for the (\w+)\.",
        text,
    )
    power = exponent(text, "here by $9^")
    assert exponent(text, "frequency by $F^") == power  # the general rule, with F = 9
    (formula,) = re.findall(r"\*Dynamic NTK\* sets its effective factor to \$([^$]+)\$ past \$L\$\.", text)
    d, base, L, s_llama = llama31_head()
    assert float(s) == float(factor) == s_llama and int(one) == 1 and word == "slowest"
    assert abs(evaluate(formula, s=s_llama, ell=2 * L, L=L) - int(scale)) < 1e-12 and int(stretch) == 2
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    hf = hf_inv_freq(d, max_position_embeddings=L, seq_len=2 * L, rope_type="dynamic", rope_theta=base, factor=s_llama)
    divisor = theta / hf.double()
    page_says = torch.tensor([int(scale) ** evaluate(power, i=i, d=d) for i in range(d // 2)], dtype=torch.float64)
    assert torch.allclose(divisor, page_says, rtol=1e-5, atol=0)  # float32 frequencies
    assert abs(float(divisor[0]) - 1) < 1e-6 and abs(float(divisor[-1]) - 9) < 1e-4 * 9  # "keeps pair 0", "by 9"
    assert bool(((divisor[1:-1] > 1 + 1e-6) & (divisor[1:-1] < 9 * (1 - 1e-6))).all())  # "each pair between by less"


def test_chapter_8s_costs_block_names_its_models_and_defines_the_loss_beyond_l():
    """The worked example's block "Slowing pairs has costs: what chapter 8 measured": "Chapter 8 trains models of 2
    layers and about 100 000 parameters at $L = 64$ on synthetic filler text", and its second cost's "its mean loss on
    the filler tokens from position $L$ on". The saved run's configuration, a model built as the run builds
    it (about 100 000 parameters: within a tenth), chapter 8's own words, and posenc's evaluation, which scores only
    the filler targets of the last n - L positions. The costs themselves are
    :func:`test_worked_example_names_two_costs_of_slowing_pairs`'s; the main line no longer states them."""
    from posenc.experiments import TinyLM, evaluation, passkey

    text = block("Slowing pairs has costs: what chapter 8 measured")
    ((layers, params, trained),) = re.findall(
        r"^Chapter 8 trains models of (\d+) layers and about ([\d ]+) parameters at \$L = (\d+)\$ on synthetic"
        # fix pass 269 (read r268a #3, unclear: "in every seed" did not say how many seeds the run has): "with five
        # seeds a run", the saved run's seed list
        r" filler text, with five seeds a run, and finds two costs\.",
        text,
    )
    assert load_results("extrapolation", check=False)["config"]["seeds"] == [0, 1, 2, 3, 4]
    assert "at $2L$ its mean loss on the filler tokens from position $L$ on is above plain RoPE's, about" in text
    config = load_results("extrapolation", check=False)["config"]
    assert int(layers) == config["model"]["n_layers"] and int(trained) == config["train_length"], config["model"]
    corpus = PasskeyCorpus(**config["corpus"])
    model = TinyLM(corpus.n_tokens, "rope", max_len=config["train_length"], **config["model"])
    count = sum(p.numel() for p in model.parameters())
    assert abs(count - int(params.replace(" ", ""))) < 0.1 * int(params.replace(" ", "")), count
    assert "These are 2-layer models of about 100 000 parameters" in chapter("08_extrapolation")
    job = re.sub(r"\s+", " ", inspect.getsource(passkey._evaluate_all))
    assert "last=n - L" in job  # the positions past the trained length, n - L of them
    scorer = re.sub(r"\s+", " ", inspect.getsource(evaluation.evaluate_lm))
    assert "only the filler targets count" in scorer and "scored[:, : length - last] = False" in scorer
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    example = example_section(raw)
    visible = re.sub(r"<details>.*?</details>", " ", example, flags=re.S)
    assert "Slowing pairs has costs" not in visible and "mean loss" not in visible  # collapsed, not on the main line


def test_opening_names_each_section_and_the_index_lists_every_row_once():
    """The opening: "To find a term, open the index just below", and the index is the next thing on the page. "Term
    tables marked A to Z are alphabetical; the others follow the order of teaching": exactly the four sections whose
    lead starts "A to Z:" (encodings, maths, attention, terms for longer inputs) have a sorted table, and each
    other term table is not sorted. "Reading model code covers the names in configurations and code,
    such as `position_ids`": that page has a row for it. The collapsed index "Index, A to Z": every row of
    every term table once, under its first letter, in alphabetical order, linked to the label of the section whose
    table holds it, under the row's own name; a headword's code name is set as code, in a Markdown link to the label,
    which a {ref} cannot format (read r203): "dynamic NTK (`dynamic`)", "logn attention (`use_logn_attn`)", each rope
    type one of transformers'.
    Besides the rows, an entry "WORD, see TERM" leads from a chapter's word with no row of its own to
    the row TERM, linked to TERM's label; each such WORD is a chapter's own word (chapter 8's "fixed", chapter 10's
    "query temperature", the intro's, the summary's and chapter 10's "training length") or a name no chapter uses
    (MQA)."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    opening = re.sub(r"\s+", " ", raw[: raw.index("<details>")])
    assert "covers the names in configurations and code, such as `position_ids`." in opening
    assert raw[raw.index("<details>") :].startswith("<details><summary>Index, A to Z</summary>")
    code = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")
    assert "\n| `position_ids` | the argument that gives a transformers model each token's position," in code
    assert "To find a term" not in opening  # the index, collapsed, follows the opening unannounced
    alphabetical_leads = {  # each alphabetical section's lead, right under its heading
        "glossary-encodings": "A to Z: other encodings, and variants of RoPE.",
        "glossary-maths": "A to Z: RoPE's algebra, its decay bound, and rounding.",
        "glossary-attention": "A to Z: attention variants, kernels and model designs.",
        "glossary-longer-terms": "A to Z: context extension, its rules and its tests.",
    }
    headings = {
        "glossary-core": "## Core terms",
        "glossary-encodings": "## Encodings",
        "glossary-maths": "## Maths and precision",
        "glossary-longer": "## Longer inputs",
        "glossary-longer-terms": "### Terms for longer inputs",
        "glossary-scales": "### Temperature and query scales",
        "glossary-attention": "## Attention, kernels and models",
        "glossary-chapter-8": "## Words of chapter 8's experiment",
    }
    for label, heading in headings.items():
        assert raw.count(f"({label})=\n") == 1 and f"({label})=\n{heading}\n" in raw, label
        lead = raw[raw.index(f"({label})=\n{heading}\n") + len(f"({label})=\n{heading}\n") :].lstrip("\n")
        lead = lead[: lead.index("\n\n")]
        assert (lead == alphabetical_leads.get(label)) == (label in alphabetical_leads), (label, lead)
        assert ("A to Z" in lead) == (label in alphabetical_leads), label  # "marked A to Z": only those
    # read r191: Core terms' lead claimed "the order the book teaches them", which its first rows, offset and distance,
    # broke; the lead now asks only that the rows be read in order, and the offset and distance rows follow the row
    # of the query and the key they use (test_letters_block_chapter_lists); read r199: then one sentence that opens the
    # small table of the three letters that clash (test_core_lead_names_this_pages_letters_and_the_chapters_i_and_j);
    # read r200: "from the top" cut (it said "in order" twice), then this page's letters in one sentence, the clash
    # table collapsed under it
    core_lead = raw[raw.index("## Core terms\n") + len("## Core terms\n") :].lstrip("\n")
    core_lead = " ".join(core_lead[: core_lead.index("\n\n")].split())
    assert core_lead == (  # fix pass 231: the pointer to the Letters table replaced the letters' block
        "On this page $m$ is a query's position, $n$ a key's, and $i$ the index of a *rotation pair*, two coordinates"
        # fix pass 272 (read r269a #1 and #2): no "Read these rows in order", a shorter pointer
        " turned together by one angle. Some chapters use other letters: see {ref}`Letters <glossary-letters>`."
    ), core_lead
    assert "the order the book teaches them" not in raw
    orders = {
        "teaching": [label for label in headings if label not in alphabetical_leads],
        "alphabetical": list(alphabetical_leads),
    }

    def key(term: str) -> str:
        return re.sub(r"[^0-9a-z -]", "", term.lower())

    for order, labels in orders.items():
        for label in labels:
            section = raw[raw.index(f"({label})=\n") :]
            own = section[: section.find("\n(glossary-", 1)]
            if "| English |" not in own:  # "Longer inputs" holds rule tables; its terms sit under the next label
                assert label == "glossary-longer", label
                continue
            table = section[section.index("| English |") :]
            terms = [line.split(" | ")[0][2:] for line in table[: table.index("\n\n")].splitlines()[2:]]
            assert len(terms) >= 5 and (terms == sorted(terms, key=key)) == (order == "alphabetical"), (label, terms)
    # the index: each table's rows, with the label above the table
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    kinds = {"dynamic": "rope type", "llama3": "rope type", "use_logn_attn": "field"}
    assert all(name in ROPE_INIT_FUNCTIONS for name, kind in kinds.items() if kind == "rope type")
    expected, label = {}, None
    lines = raw.splitlines()
    for n, line in enumerate(lines):
        found = re.fullmatch(r"\((glossary-[\w-]+)\)=", line)
        if found:
            label = found[1]
        if line.startswith("| English |"):
            for entry in lines[n + 2 :]:
                if not entry.startswith("| "):
                    break
                term = entry.split(" | ")[0][2:]
                assert term not in expected, term
                assert all(name in kinds for name in re.findall(r"\(`(\w+)`\)", term)), term
                expected[term.replace("`", "").replace("$\\tau$", "τ").replace("$L$", "L")] = label
    assert len(expected) > 120, len(expected)
    index = block("Index, A to Z")
    groups = re.findall(r"\*\*([A-Z])\*\*: (.*?)\.(?= \*\*[A-Z]\*\*|$)", index)
    assert "".join(letter for letter, _ in groups) == "".join(sorted({letter for letter, _ in groups})), groups
    listed = {}
    order = []
    aliases = {}
    code = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")
    fields = code.split("(glossary-fields)=\n")[1].split("\n(")[0]  # Reading model code's section of fields
    elsewhere = {}
    for letter, refs in groups:
        # read r203 set a headword's code name as code, in a Markdown link; fix pass 264 (read r263 #5): {ref}s alone
        links = re.findall(r"\{ref\}`([^<`]+) <(glossary-[\w-]+)>`", refs)
        for text, target in links:
            assert text not in listed and text not in aliases, text
            if target == "glossary-fields":  # "WORDS, in Reading model code": each word a field with a row there
                words, where = text.split(", in ")
                assert where == "Reading model code", text
                for field in words.split(" and "):
                    assert f"\n| `{field.replace(' ', '_')}` | " in fields, field
                elsewhere[words] = target
                order.append(text)
                continue
            if ", see " in text:
                word, term = text.split(", see ")
                assert word not in expected and expected[term] == target, (word, term, target)
                aliases[word] = term
            else:
                listed[text] = target
            order.append(text)
            assert re.sub(r"[^0-9a-z]", "", text.lower())[0] == letter.lower(), (letter, text)
    assert listed == expected, set(listed.items()) ^ set(expected.items())
    assert elsewhere == {"rope type and rope parameters": "glossary-fields"}, elsewhere
    assert order == sorted(order, key=key), order
    assert aliases == {
        "fixed": "static or fixed (scaling)",
        "multi-query attention (MQA)": "grouped-query attention (GQA)",
        "query temperature": "Llama 4's query temperature τ (temperature tuning)",
        "training length": "trained length",
    }, aliases
    # "training length", a word for L in the intro, the summary or chapter 10, leads to the trained length's row,
    # which gives it as a synonym (any one of the three pages using the word justifies the entry)
    assert row("trained length | 训练长度").split(" | ")[2].endswith("; also called the training length")
    pages = [
        re.sub(r"\s+", " ", (ROOT / "book" / f"{name}.md").read_text(encoding="utf-8")) for name in ("intro", "summary")
    ]
    assert any("training length" in text for text in (chapter("10_rope_today"), *pages))
    # fix pass 264 (read r263 #5, unclear: three Markdown anchors among {ref}s, possibly broken): every entry is a
    # {ref} to its section's label, the code names in plain text, as a {ref}'s text cannot hold code
    assert "{ref}`dynamic NTK (dynamic) <glossary-longer-terms>`" in index and row("dynamic NTK (`dynamic`)")
    assert "{ref}`Llama 3.1 scaling (llama3) <glossary-longer-terms>`" in index and row("Llama 3.1 scaling (`llama3`)")
    assert "{ref}`logn attention (use_logn_attn) <glossary-scales>`" in index and row(
        "logn attention (`use_logn_attn`)"
    )
    assert "](#" not in index and index.count("{ref}`") == len(order), index  # no Markdown anchor: one style
    assert "Dynamic NTK's effective factor is not the configuration's `factor` $s$." in chapter("07_beyond")
    assert "rope_types are static" in chapter("07_beyond") and "rule are *static*" in chapter("10_rope_today")
    assert "Llama 4 adds a *query temperature* $\\tau$" in chapter("10_rope_today")


def test_longer_inputs_block_config_fields_and_the_cope_name_clash():
    """The block "In models and code" of "Terms for longer inputs": "A scaled model's configuration usually stores $L$
    as `original_max_position_embeddings`": every scaled config in posenc/book/models.py (a prose sync) that records its
    length before the longest stage and stores the field stores that length there, and Gemma 3's `linear` one does not
    store it (the worked example's block: "A `linear` or `dynamic` configuration need not store $L$"). The notation
    block's CoPE row names the page's CoPE, and the row in Encodings defines it as contextual position encoding. The
    2026 Clipped RoPE paper, cited "Li et al. 2026" (not FIRE's Li et al. 2024), is references.bib's entry for arXiv
    2602.05258; what it does has no offline source: that part is a prose claim."""
    text = models_block("### Terms for longer inputs")
    assert "A scaled model's configuration usually stores $L$ as `original_max_position_embeddings`." in text
    stored = 0
    for name, config in MODEL_ROPE_CONFIGS.items():
        scaling, before = config.get("rope_scaling") or {}, config.get("trained_length_before")
        if before and "original_max_position_embeddings" in scaling:
            assert scaling["original_max_position_embeddings"] == before, name
            stored += 1
    assert stored >= 3, stored
    assert "original_max_position_embeddings" not in MODEL_ROPE_CONFIGS["gemma-3-27b"]["rope_scaling"]
    # read r192: one paper, not "papers from 2026"; its citation is the cell's subject
    assert letters("CoPE") == (
        "| CoPE | contextual position encoding | in Li et al. 2026, Clipped RoPE, which softly clips RoPE's low"
        " frequencies |"
    )
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    (entry,) = [e for e in re.split(r"\n@", bib) if "eprint        = {2602.05258}" in e]
    assert "Clipped {RoPE}" in entry and "{Li, Haoran and" in entry and "year          = {2026}" in entry
    assert row("contextual position encoding (CoPE)").startswith(
        "| contextual position encoding (CoPE) | 上下文位置编码 |"
    )  # like 相对位置编码 for RPE; the summary's zh catalog and this page's zh index use the same term
    catalogs = ROOT / "locales" / "zh_CN" / "LC_MESSAGES" / "book"
    assert "上下文位置编码（contextual position encoding）" in (catalogs / "summary.po").read_text(encoding="utf-8")
    assert "{ref}`上下文位置编码（CoPE） <glossary-encodings>`" in (catalogs / "glossary.po").read_text(
        encoding="utf-8"
    )
    assert row("relative position encoding (RPE)").startswith("| relative position encoding (RPE) | 相对位置编码 |")


# ---- the other "temperature", the longer-input rows' block, NTK-aware's fully rotated head --------------------------


def test_temperature_sections_opening_names_the_chapters_that_multiply():
    """The table of "Temperature and query scales" is followed by its blocks, the first :data:`WORD_BLOCK`, which opens
    with the word clash, this page's *temperature* $t$ divides the logits while Llama 4's *query temperature*, the
    name chapter 10 gives a multiplier, multiplies them: "Chapter 10 calls Llama 4's $\\tau$ a query temperature, yet it
    multiplies the logits: a larger $\\tau$ sharpens" (read r186: "Chapters 8 and 10" read chapter 8's one bullet, which
    calls a growing
    multiplier an attention temperature and names Llama 4's among such, as naming tau; chapter 8's words are the
    block's bullet and the Letters row's). The page's headwords are chapter 10's "query temperature" and chapter 7's
    "effective factor". That the multipliers grow and sharpen is
    :func:`test_temperature_section_opens_with_its_multiplier_table`'s and
    :func:`test_chapter_10s_query_temperature_multiplies_the_logits`'s."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[
        raw.index("### Temperature and query scales") : raw.index("| English |", raw.index("### Temperature"))
    ]
    # nothing between the table and its first block, the word's block (read r191: the clash, an aside on the main line,
    # is that block's first bullet), which opens with the clash and the direction of Llama 4's tau
    tail = raw[raw.index("| English |", raw.index("### Temperature")) :]
    between = " ".join(tail[tail.index("\n\n") : tail.index("<details>")].split())
    # fix pass 279 (read r275b #4, unclear: the direction flipped three times): one example sentence pair between,
    # checked in test_scales_tables_worked_row_yarns_factor_at_8
    # fix pass 281 (main line kept at its length): one sentence, "For example, where YaRN's attention factor applies"
    # fix pass 285 (read r280b #4): the example names the attention factor's conditions
    # fix pass 286 (reads r281a #7 and r281b #3): nothing between the table and the word's block
    assert between == "", between
    assert tail[tail.index("<details>") :].startswith(f"<details><summary>{WORD_BLOCK}</summary>")
    ((who, name, direction),) = re.findall(
        r"^- Chapter (10) calls Llama 4's \$\\tau\$ a (query temperature), yet it multiplies the logits: a larger"
        r" \$\\tau\$ (sharpens)\. - ",
        block(WORD_BLOCK),
    )
    # chapter 10 calls it a query temperature; transformers 5.24's Llama 4 sets tau = 1 + attn_scale * log1p(floor((p +
    # 1) / floor_scale)), at least 1, and multiplies the queries by it, so every logit; a larger multiplier lowers the
    # entropy of random logits (sharpens), as test_chapter_10s_query_temperature_multiplies_the_logits computes
    from transformers.models.llama4 import modeling_llama4

    source = inspect.getsource(modeling_llama4.Llama4TextAttention)
    assert "torch.log1p(torch.floor((positions.float() + 1.0) / self.floor_scale)) * self.attn_scale + 1.0" in source
    assert "query_states = (query_states * attn_scales)" in source
    positions = torch.arange(0, 20 * 8192, 97, dtype=torch.float64)
    tau = torch.log1p(torch.floor((positions + 1.0) / 8192)) * 0.1 + 1.0
    assert bool((tau >= 1).all()) and bool(tau[-1] > 1)
    g = torch.Generator().manual_seed(1)
    q, k = torch.randn(2, 40, 16, generator=g, dtype=torch.float64)
    sharper = bool((attention_entropy(1.3 * (q @ k.T)) < attention_entropy(q @ k.T)).all())
    assert sharper == (direction == "sharpens")
    assert f"Llama 4 adds a *{name}* $\\tau$" in chapter(f"{int(who):02d}_rope_today")
    # chapter 8 names no tau: its bullet calls a growing multiplier an attention temperature and lists Llama 4's
    c8 = chapter("08_extrapolation")
    assert "\\tau" not in c8 and "query temperature" not in c8 and "attn_temperature_tuning" in c8
    # the opening's one caveat is the attention factor's scope, a fully rotated head (read r192), in plain words (read
    # r201: "when RoPE rotates the whole head"; the rows keep "fully rotated head"); the partial rotary case is its
    # block's
    opening = re.sub(r"\s+", " ", section)
    assert "partial rotary" not in opening, opening
    # fix pass 264 (reads r263 #3 and r263b #3): the scope is the example head's; its conditions are the block's
    # fix pass 265 (reads r264 #1 and r264b #1): the conditions on the main line, once; Llama 3.1 in the block only
    # fix pass 267 (read r266b #1, unclear: the conditions still stacked in the paragraph): the power alone on the
    # main line; the conditions are the row's and the block's
    # fix pass 266 (reads r265 #2 and r265b #1): the conditions, then the attention factor, in one sentence
    # fix pass 273 (reads r270a #5 and r270b #3, unclear): that sentence left the opening; the row gives the square
    # and its conditions
    # fix pass 274 (reads r271a #6 and r271b #5): the first sentence names it once, its conditions left to the row
    # fix pass 280 (reads r276a #4 and r276b #2, unclear: caveats before the idea): the opening no longer names the
    # attention factor; its conditions sentence is the first bullets' of the block :data:`SCALES_CAVEATS`
    assert opening.count("attention factor") == 0 and opening.count("QK-norm") == 0, opening
    assert "acts through its square" not in opening and "with no *QK-norm* after the rotation" in row(
        "attention factor"
    )
    assert "Llama 3.1" not in opening and "Llama 3.1's head is fully rotated" in block(YARN_FACTORS)
    # fix pass 268 (read r267 #1, overstated: a bias or a soft-cap can make a larger multiplier flatten): its scope
    # fix pass 275 (read r272b #4, unclear: the idea came after the rows): the idea first, its scope in its sentence
    # fix pass 276 (reads r273a #2 and r273b #1, unclear: "where the logit is q . k times its multipliers alone"):
    # the condition in words, "as long as nothing else, such as an added bias or a soft-cap, acts on the logit"
    # fix pass 280 (reads r276a #4 and r276b #2): the idea first; its scope is the block :data:`SCALES_CAVEATS`'s
    # fix pass 281 (read r277b #1, overstated): the scope back in the sentence itself, in short, the block's bullet
    # giving the examples; (read r277a #4) the later rows on top of the first
    assert opening.startswith(
        "### Temperature and query scales Each row below gives a multiplier of $q \\cdot k$ before the softmax. The"
        " later rows multiply on top of the first, usually $1/\\sqrt d$. When nothing else acts on the logit, a larger"
        " multiplier sharpens attention: the top-scoring key gets more of the weight."
    ), opening
    assert "a $t$ below 1 sharpens" not in opening  # the temperature's direction is its row's alone
    # fix pass 287 (read r282a #5, unclear: the condition in two cells): value first, the scope in the meaning only
    assert cells("attention factor")[3].startswith("$a^2$, about 1.46 for YaRN at $s = 8$, as query and key")
    assert row("attention factor").count("in a fully rotated head") == 1  # its meaning alone
    assert letters("temperature") == TEMPERATURE_LETTERS
    words = {
        8: "An attention temperature that grows with the query's position: Scalable-Softmax scales the logits by",
        10: "Llama 4 adds a *query temperature* $\\tau$ for these layers: it multiplies the queries",
    }
    names = {8: "08_extrapolation", 10: "10_rope_today"}
    for n, said in words.items():
        assert said in chapter(names[n]), n
    assert "| query temperature by position |" in (ROOT / "book" / "claims.md").read_text(encoding="utf-8")
    assert "temperature" not in row("Llama 4's query temperature $\\tau$ (temperature tuning)").split(" | ")[2]
    assert row("effective factor | 有效因子")
    assert "Dynamic NTK's effective factor is not the configuration's `factor` $s$." in chapter("07_beyond")


def test_letters_blocks_temperature_row_names_the_chapters_that_multiply():
    """The Letters table's row "temperature": this page's column gives one meaning, "a number $t$ that divides the
    logits"; elsewhere each chapter's multipliers in its own words (read r186: "in chapters 8 and 10, several scales"
    read chapter 8's one bullet broadly): "a multiplier of the logits: in chapter 8, one that grows with the query's
    position, and YaRN's *attention factor* in one run's name; in chapter 10, Llama 4's $\\tau$ and scales like it: see
    Temperature and query scales". That section states each of those meanings in :data:`WORD_BLOCK`, right under its
    table: "Chapter 10 calls Llama 4's $\\tau$ a query temperature, yet it multiplies the logits" (its row: a factor on
    the queries); the bullet "Chapter 8 calls a multiplier of the logits that grows with the query's position an
    attention temperature, and names *Scalable-Softmax*'s and Llama 4's" (chapter 8's "An attention temperature that
    grows with the query's position: Scalable-Softmax scales the logits by ..., and `transformers`' Llama 4 scales the
    queries of its NoPE layers"); and its last bullet, "Chapter 8's run name "dynamic YaRN, no temperature" uses the
    word for YaRN's *attention factor*, which that run fixes at 1": chapter 8's code and its saved run. The attention
    factor's detail (a on cos and sin, a^2 on the logits of a fully rotated head) is that section's row alone, whose
    test computes the power. The page's temperature row divides."""
    assert letters("temperature") == TEMPERATURE_LETTERS
    # each meaning the cell names is stated in that section: Llama 4's tau, in chapter 10
    assert (
        "Chapter 10 calls Llama 4's $\\tau$ a query temperature, yet it multiplies the logits: a larger $\\tau$"
        " sharpens." in page()
    )
    # the detail is said once, in the scales section: a on cos and sin, a^2 on a fully rotated head's logits
    assert "cos and sin" not in letters("temperature") and "a^2" not in letters("temperature")
    scales_section = page()[page().index("### Temperature and query scales") :]
    scales_section = scales_section[: scales_section.index("(glossary-attention)=")]
    assert "| the number $a$ by which YaRN and LongRoPE multiply RoPE's cos and sin;" in scales_section
    # fix pass 237 (read r236 #5, overstated: a QK-norm after the rotation, as in Llama 4's RoPE layers and HunYuan,
    # divides the factor back out; the QK-norm bullet names them)
    assert (
        "in a fully rotated head with no *QK-norm* after the rotation, doing so multiplies the logits by $a^2$ |"
        in row("attention factor")
    )
    assert "Llama 4 Scout's RoPE layers normalise after it." in page()
    # fix pass 287 (read r282a #5): the multiplier cell's value, its scope the meaning cell's
    assert cells("attention factor")[3].startswith("$a^2$, about 1.46 for YaRN at $s = 8$, as query and key")
    # tau "a multiplier of the queries": its row's "a factor of 1 or more on the queries"
    assert "a factor of 1 or more on the queries" in row("Llama 4's query temperature $\\tau$ (temperature tuning)")
    # read r191: the chapters' and Llama 4's code's words for the multipliers share one block, :data:`WORD_BLOCK`
    scales = block(WORD_BLOCK)
    assert scales.startswith("- Chapter 10 calls Llama 4's $\\tau$ a query temperature")
    assert "`attn_temperature_tuning`" in scales.split(" - ")[1] and "some texts" not in scales
    # Scalable-Softmax's growing multiplier, which chapter 8 calls an attention temperature (its row: a multiplier of
    # the logits set from the number of tokens attended), in chapter 8's words
    ch8 = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    ch8_text = " ".join(" ".join("".join(c["source"]) for c in ch8["cells"] if c["cell_type"] == "markdown").split())
    assert (
        "An attention temperature that grows with the query's position: Scalable-Softmax scales the logits" in ch8_text
    )
    assert (
        "- Chapter 8 calls a multiplier of the logits that grows with the query's position an attention temperature,"
        " and names *Scalable-Softmax*'s and Llama 4's." in scales
    )
    assert "`transformers`' Llama 4 scales the queries of its NoPE layers" in ch8_text
    assert "| a multiplier of the logits set from the number of tokens attended |" in row("Scalable-Softmax")
    assert scales.endswith(
        "- Chapter 8's run name \"dynamic YaRN, no temperature\" uses the word for YaRN's *attention factor*, which"
        " that run fixes at 1."
    )
    # chapter 8's run name: its YaRN run with the attention factor turned off (t1: the factor fixed at 1)
    nb = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert '"rope+yarn t1": "dynamic YaRN, no temperature"' in code
    sensitivity = load_results("extrapolation", check=False)["config"]["sensitivity"]
    assert sensitivity["yarn t1"] == {"scaling": "yarn", "attention_factor": 1.0}, sensitivity["yarn t1"]
    assert "multipl" not in letters("temperature").split(" | ")[1]  # this page's column: the divisor only
    assert letters("temperature").split(" | ")[1] == "a number $t$ that divides the logits"  # one meaning here
    assert row("Llama 4's query temperature $\\tau$ (temperature tuning)")  # "whose row on this page"
    assert cells("Llama 4's query temperature $\\tau$ (temperature tuning)")[3] == "$\\tau$"  # it multiplies
    assert "| a number $t$ that divides the logits:" in row("temperature (attention temperature)")
    # the row links no chapter that uses the word only for a multiplier: chapter 8 (its Letters entry) never writes a
    # temperature that divides the logits, so the row does not link it
    assert "08_extrapolation" not in row("temperature (attention temperature)")
    assert not re.search(r"(divid\w+|over) (the|a|each) (logit|score)", chapter("08_extrapolation")), "divides"
    c8, c10 = chapter("08_extrapolation"), chapter("10_rope_today")
    assert "An attention temperature that grows with the query's position: Scalable-Softmax scales the logits by" in c8
    assert "`transformers`' Llama 4 scales the queries of its NoPE layers (`attn_temperature_tuning`)" in c8
    assert "Llama 4 adds a *query temperature* $\\tau$ for these layers: it multiplies the queries" in c10


def test_longer_inputs_second_block_ntk_by_parts_and_passkeys():
    """The block :data:`MORE_LONGER` (Self-Extend's and PoSE's bullets are
    :func:`test_rows_of_later_designs_match_their_chapters_and_the_primers_opening`'s and
    :func:`test_rows_for_path_dape_and_pose_follow_their_chapters`'s). NTK-by-parts's row, "keeps the pairs that turn
    many times in $L$, divides by $s$ those that turn less than once, and *ramps* those between", and the bullet "its
    *ramp* divides the pairs between by less than $s$": transformers' `yarn` on Llama 3.1's head (default betas)
    keeps the pairs above 32 turns in L, divides those below 1 turn by s and the rest by more than 1, less than s. The
    passkey bullet, "Large models that pass *passkey retrieval* often fail harder tasks of long context, such as RULER's
    (Hsieh et al. 2024)", with chapter 8's two harder tests, and the needle row, "*passkey retrieval* is one of the
    easiest tests of long context": chapter 8's words and citations. The bullet "*NTK-aware scaling* is named after the
    neural tangent kernel of Jacot et al. 2018": chapter 7's citation. Who described NTK-by-parts is a prose
    claim with no offline source."""
    text = block(MORE_LONGER)
    assert row("NTK-by-parts").startswith(
        "| NTK-by-parts | | keeps the pairs whose *turns in $L$* exceed an upper bound, divides by $s$ those below a"
        " lower bound, and *ramps* those between |"
    )
    assert (
        "- *NTK-by-parts* is described by Peng et al. 2024, who credit bloc97; its *ramp* divides the pairs between by"
        " less than $s$. Its two bounds are YaRN's *betas*, `beta_fast` and `beta_slow`, and `llama3`'s"
        " `high_freq_factor` and `low_freq_factor`." in text
    )
    # the bounds are parameters: for transformers' `yarn` and `llama3`, with several (upper, lower) settings, on two
    # heads, a pair above the upper bound (in turns in L) is kept, one below the lower is divided by s, and only those
    # between are neither; the old "less than once" held for a lower bound of 1 only
    for d, base, L in ((128, 500_000.0, 8192), (128, 10_000.0, 4096)):
        theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
        turns = L * theta / (2 * math.pi)
        for upper, lower in ((32.0, 1.0), (4.0, 1.0), (16.0, 2.0), (8.0, 3.0)):
            for name in ("yarn", "llama3"):
                if name == "yarn":
                    freqs = hf_inv_freq(
                        d,
                        rope_type="yarn",
                        rope_theta=base,
                        factor=8.0,
                        original_max_position_embeddings=L,
                        beta_fast=upper,
                        beta_slow=lower,
                    )
                else:
                    freqs = hf_llama3(d, base, 8.0, upper, lower, L)
                ratio = theta / freqs.double()
                kept = torch.isclose(ratio, torch.ones_like(ratio), rtol=1e-5)
                divided = torch.isclose(ratio, torch.full_like(ratio, 8.0), rtol=1e-5)
                assert kept[turns > upper].all() and divided[turns < lower].all(), (name, upper, lower)
                assert (kept | divided)[(turns > upper) | (turns < lower)].all()
                if lower > 1:
                    assert divided[(turns >= 1) & (turns < lower)].any(), (name, upper, lower)  # not "less than once"
    from transformers.modeling_rope_utils import RopeParameters

    fields = RopeParameters.__annotations__
    assert {"beta_fast", "beta_slow", "high_freq_factor", "low_freq_factor"} <= set(fields), fields
    d, base, L, s = llama31_head()
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    turns = L * theta / (2 * math.pi)
    divisor = (
        theta / hf_inv_freq(d, rope_type="yarn", rope_theta=base, factor=s, original_max_position_embeddings=L).double()
    )
    kept = torch.isclose(divisor, torch.ones_like(divisor), rtol=1e-6)
    divided = torch.isclose(divisor, torch.full_like(divisor, s), rtol=1e-6)
    between = ~kept & ~divided
    assert kept[turns > 32].all() and divided[turns < 1].all() and between.any(), (kept, divided)
    assert ((divisor[between] > 1) & (divisor[between] < s)).all(), divisor[between]
    # read r191: chapter 8 says "harder tasks", not harder needle tests, and names needle tests only in its further
    # reading, NoLiMa and HELMET; the bullet says both in chapter 8's words, so the needle row's link to it holds
    assert (
        "- Large models that pass *passkey retrieval* often fail harder tasks of long context, such as RULER's (Hsieh"
        " et al. 2024). Chapter 8 names two tests harder than a passkey: NoLiMa (Modarressi et al. 2025), where the"
        " question shares almost no words with the fact, and HELMET (Yen et al. 2025), which finds that"
        " *needle-in-a-haystack* tests do not reliably predict downstream tasks." in text
    )
    c8_further = chapter("08_extrapolation")
    assert (
        "- Tests harder than a passkey: NoLiMa ([Modarressi et al. 2025](https://arxiv.org/abs/2502.05167"
        ' "cite:modarressi2025nolima")), where the question shares almost no words with the fact, and HELMET ([Yen et'
        ' al. 2025](https://arxiv.org/abs/2410.02694 "cite:yen2025helmet")), which finds that needle tests do not'
        " reliably predict downstream tasks." in c8_further
    )
    ((runs,),) = [
        re.findall(
            r"^\| needle-in-a-haystack test \| 大海捞针测试 \| a test that hides a fact in long text and asks for it"
            r" \(Kamradt 2023\); \*passkey retrieval\*, the one chapters (\d+ and \d+) run, is one of the easiest tests"
            r" of long context \|",
            row("needle-in-a-haystack test"),
        )
    ]
    # "(Kamradt 2023)": the References page's entry; "the one chapters 8 and 11 run": each runs chapter 8's passkey
    # probes, and the passkey row links both; read r200: the needle row links only the chapters whose text names a
    # needle or a haystack test (chapter 8's further reading does; chapter 11 runs passkeys and never names one)
    assert "@misc{kamradt2023needle," in (ROOT / "references.bib").read_text(encoding="utf-8")
    ran = {int(n) for n in runs.split(" and ")}
    linked = {int(n) for n in re.findall(r"\{doc\}`(\d+) <\.\./notebooks/", row("needle-in-a-haystack test"))}
    stems = {int(Path(p).name[:2]): Path(p).stem for p in glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))}
    names = {n for n, stem in stems.items() if re.search(r"needle|haystack", chapter(stem), flags=re.I)}
    assert ran == {8, 11} and linked == names == {8}, (ran, linked, names)
    passkey = {int(n) for n in re.findall(r"\{doc\}`(\d+) <\.\./notebooks/", row("passkey retrieval"))}
    assert passkey == ran, passkey
    assert "### Passkey retrieval" in chapter("08_extrapolation")
    assert "chapter 8's passkey experiment" in chapter("11_learned_position")
    # chapter 11 defines the passkey it runs, in its own words (which its helper may reword)
    assert re.search(
        r"A \*passkey\* is [^.]*digit[^.]*hidden in the filler[^.]*asked for at the end", chapter("11_learned_position")
    )
    needles = set()
    for path in sorted(glob.glob(str(ROOT / "notebooks" / "[01][0-9]_*.ipynb"))):
        if "needle" in chapter(Path(path).stem).lower():
            needles.add(int(Path(path).name[:2]))
    assert needles == {8} == linked, needles  # chapter 11 runs the passkey but never names the needle test (read r200)
    assert "Hsieh" not in row("needle-in-a-haystack test")  # the row cites no one, so credits RULER's authors with none
    # NTK-aware scaling's name and its source, moved from the row into this block; chapter 7 cites the same paper
    assert "- *NTK-aware scaling* is named after the neural tangent kernel of Jacot et al. 2018." in text
    assert '[Jacot et al. 2018](https://arxiv.org/abs/1806.07572 "cite:jacot2018ntk")' in chapter("07_beyond")
    c8 = chapter("08_extrapolation")
    assert (
        "A passkey is one of the easiest tests of long context: large models that pass it often fail harder tasks"
        ' ([Hsieh et al. 2024](https://arxiv.org/abs/2404.06654 "cite:hsieh2024ruler"))' in c8
    )
    assert "which finds that needle tests do not reliably predict downstream tasks" in c8
    assert row("needle-in-a-haystack test").endswith(
        "is one of the easiest tests of long context | {doc}`8 <../notebooks/08_extrapolation>` |"
    )


def test_ntk_aware_row_names_a_fully_rotated_head():
    """The row "NTK-aware scaling": "enlarges RoPE's base to $b\\,s^{d/(d-2)}$ for a fully rotated head of width $d$",
    the words of the attention factor row ("in a fully rotated head"), not "turns in full", which reads like the page's
    *turn*. Under *partial rotary* the exponent's $d$ is not the head's width: with $d_{\\text{rot}} = d/2$, the
    head-width exponent misses the slowest rotated pair's $s$, and the rotated width's exponent hits it."""
    text = row("NTK-aware scaling")
    assert "| enlarges RoPE's base to $b\\,s^{d/(d-2)}$ for a fully rotated head of width $d$ (bloc97 2023) |" in text
    assert "in full" not in text and "fully rotated head" in row("attention factor")
    power = exponent(text, "enlarges RoPE's base to $b\\,s^")
    d, b, s = 64, 10_000.0, 8.0
    rot = d // 2
    theta = b ** (-torch.arange(0, rot, 2, dtype=torch.float64) / rot)  # partial rotary: its own frequencies
    for width, hits in ((d, False), (rot, True)):
        raised = (b * s ** evaluate(power, d=width)) ** (-torch.arange(0, rot, 2, dtype=torch.float64) / rot)
        assert (abs(float(theta[-1] / raised[-1]) - s) < 1e-9 * s) == hits, width


# ---- context parallelism --------------------------------------------------------------------------------------------


def test_context_parallelism_needs_global_positions():
    """The row "context parallelism": "each chunk's position term, ALiBi's bias or RoPE's angles, needs its tokens'
    global positions", chapter 6's "each chunk's bias needs its global positions". A sequence of 12 tokens split into
    chunks of 4: with each chunk numbered from 0, a query in the last chunk gets another RoPE score and another ALiBi
    bias for a key in the first than the whole sequence gives it."""
    assert "each chunk's position term, ALiBi's bias or RoPE's angles, needs its tokens' global positions |" in row(
        "context parallelism"
    )
    assert "Context parallelism splits the sequence instead, and each chunk's bias needs its global positions." in (
        chapter("06_alibi")
    )
    d, g = 8, torch.Generator().manual_seed(0)
    q, k = torch.randn(2, d, generator=g, dtype=torch.float64)

    def score(m: int, n: int) -> float:
        return float(
            (posenc.rope_matrix(m, d, dtype=torch.float64) @ q) @ (posenc.rope_matrix(n, d, dtype=torch.float64) @ k)
        )

    query, key, chunk = 10, 1, 4  # the query in chunk 2, the key in chunk 0
    alibi = posenc.alibi_bias(1, 12)[0]  # [query, key] over the whole sequence
    assert abs(score(query, key) - score(query % chunk, key % chunk)) > 1e-6  # local positions: another angle
    assert alibi[query, key] != alibi[query % chunk, key % chunk]  # local positions: another bias


# ---- the worked example's divisors on the main line, critical dimension, content factor, base bound -----------------


def test_longer_inputs_opens_with_what_most_rules_divide_and_keep():
    """Read r203: the lesson that opens "Longer inputs", :data:`LONGER_LESSON`, is the story in plain words, before any
    term or letter: "In a decoder, some of RoPE's pairs turn less than once over a training input. A long enough input
    would turn them past the angles training showed. Most rules for longer inputs divide these pairs' frequencies, so
    that far keys get angles seen in training." Run below on Llama 3.1's head: some pairs turn less than once over
    distances 0 to L - 1, others more; an input of 8L carries the slowest pair past its trained arc; and each rule that
    changes frequencies, run in transformers or by its row's formula, divides every such pair's frequency by more than
    1, so that PI, at factor 8, keeps every angle of an input of about 8L within the trained arcs. The fast pair
    sentence's "some rules leave the fastest ones unchanged" is the check below of `llama3` and YaRN.
    Before read r203, the lesson (read r199) said: "Most rules for longer inputs divide
    the frequency of RoPE's slowest pair by a number that the configuration or the input's length sets. Some leave the
    fastest pairs unchanged." (read r200: plain words, not yet the term *kept*, and "fastest" for "the pairs that turn
    many times over a training input", which the primer's *fast pair* explains). It comes before the sentence that
    gives $L$ and $\\ell$, and the table that gives $s$, and uses none of them. "Most rules": of the term table's
    rows for ways to read longer inputs, ten change
    frequencies (each row says how) and three change positions instead (DCA, Self-Extend and PoSE: their rows say so).
    "Divide the slowest pair's frequency by a number that the configuration ... sets": transformers' `linear`, `yarn`
    and `llama3`, and NTK-aware scaling's base (the row's formula), on Llama 3.1's head, divide it by `factor`, at two
    factors; a larger base (ABF) divides it too; LongRoPE by its configured list's last entry. "Or the input's length":
    transformers' `dynamic` at one `factor` divides it by more at 4L than at 2L. "Some leave the fastest pairs
    unchanged": `llama3` and `yarn` keep pairs of Llama 3.1's head, each of which turns more than 4 times in L, an
    input of the trained length, and every kept pair turns faster than every pair they do not keep, pair 0 among them;
    PI keeps none."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    lead = " ".join(raw[raw.index("## Longer inputs\n") : raw.index("Below, $L$ is a model's")].split())
    assert lead == "## Longer inputs " + LONGER_LESSON, lead
    assert "$" not in LONGER_LESSON and "*" not in LONGER_LESSON  # no letter or term before its definition
    # "Most rules": ten rows change frequencies, three change positions
    dividing = {
        "adjusted base frequency (ABF)": "| a larger RoPE base,",
        "dynamic NTK (`dynamic`)": "| *NTK-aware scaling* whose effective factor",
        "dynamic PI": "| PI whose effective factor",
        "dynamic YaRN": "| YaRN with the current input's *stretch* as its `factor`",
        "Llama 3.1 scaling (`llama3`)": "| *NTK-by-parts* with bounds",
        "LongRoPE": "| RoPE with a searched factor for each pair",
        "NTK-aware scaling": "| enlarges RoPE's base",
        "NTK-by-parts": "divides by $s$ those below a lower bound",
        "position interpolation (PI)": "| divides every RoPE frequency by $s$",
        "YaRN": "| NTK-by-parts frequencies",
    }
    positional = {
        "Dual Chunk Attention (DCA)": "it remaps positions chunk by chunk",
        "Self-Extend": "by grouping far positions",
        "PoSE": "whose position indices skip ahead",
    }
    for term, words in {**dividing, **positional}.items():
        assert words in row(term), term
    assert len(dividing) > len(positional)
    # "by a number that the configuration ... sets": the fixed rules divide the slowest pair by `factor`
    d, base, L, _ = llama31_head()
    own = posenc.rope_inv_freq(d, base, dtype=torch.float64)

    def slowest(freqs: torch.Tensor) -> float:
        return float(own[-1] / freqs.double()[-1])

    ntk_power = exponent(row("NTK-aware scaling"), "s^")
    # read r203, the story: some pairs turn less than once over training's distances, 0 to L - 1, and a long enough
    # input turns them past the arc training showed; each rule divides every such pair's frequency, so PI at factor 8
    # keeps an 8L input's angles within the trained arcs
    slow = (L - 1) * own < 2 * math.pi
    for factor in (4.0, 8.0):
        rules = {
            "linear": hf_inv_freq(d, rope_type="linear", rope_theta=base, factor=factor),
            "yarn": hf_inv_freq(
                d, rope_type="yarn", rope_theta=base, factor=factor, original_max_position_embeddings=L
            ),
            "llama3": hf_llama3(d, base, factor, 4.0, 1.0, L),
            "ntk-aware": posenc.rope_inv_freq(d, base * factor ** evaluate(ntk_power, d=d), dtype=torch.float64),
        }
        for name, freqs in rules.items():
            assert abs(slowest(freqs) - factor) < 1e-4 * factor, (name, factor, slowest(freqs))
        every = {
            **rules,
            "abf": posenc.rope_inv_freq(d, 10 * base, dtype=torch.float64),
            "dynamic": hf_inv_freq(
                d, max_position_embeddings=L, seq_len=2 * L, rope_type="dynamic", rope_theta=base, factor=factor
            ),
        }
        for name, freqs in every.items():
            assert bool((own[slow] / freqs.double()[slow] > 1 + 1e-6).all()), (name, factor)
    assert slowest(posenc.rope_inv_freq(d, 10 * base, dtype=torch.float64)) > 1  # a larger base (ABF)
    long = [1.0 + 0.5 * i for i in range(d // 2)]
    cfg = _longrope_llama_config(d, base, L, [1.0] * (d // 2), long)
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    longrope, _ = ROPE_INIT_FUNCTIONS["longrope"](cfg, "cpu", seq_len=2 * L)
    assert abs(slowest(longrope) - long[-1]) < 1e-4 * long[-1]  # the configured list's entry
    # "or the input's length": dynamic NTK at one `factor` divides by more at a longer input
    dyn = [
        slowest(hf_inv_freq(d, max_position_embeddings=L, seq_len=n, rope_type="dynamic", rope_theta=base, factor=2.0))
        for n in (2 * L, 4 * L)
    ]
    assert 1 < dyn[0] < dyn[1], dyn
    assert slow.any() and not slow.all(), slow
    assert (8 * L - 1) * float(own[-1]) > (L - 1) * float(own[-1]) and (L - 1) * float(own[-1]) < 2 * math.pi
    pi8 = hf_inv_freq(d, rope_type="linear", rope_theta=base, factor=8.0).double()
    # far keys, trained angles: an input of 8(L - 1) + 1 tokens, about 8L, whose last distance is 8(L - 1)
    assert bool((8 * (L - 1) * pi8[slow] <= (L - 1) * own[slow] * (1 + 1e-6)).all())  # float32 frequencies
    # "Some leave the fastest pairs unchanged": llama3 and yarn keep the pairs with the most turns in L, PI none
    turns = L * own / (2 * math.pi)
    for name, freqs in (
        ("llama3", hf_llama3(d, base, 8.0, 4.0, 1.0, L)),
        ("yarn", hf_inv_freq(d, rope_type="yarn", rope_theta=base, factor=8.0, original_max_position_embeddings=L)),
    ):
        kept = torch.isclose(freqs.double(), own, rtol=1e-6, atol=0)
        assert kept.any() and not kept.all() and bool(kept[0]), name  # the fastest pair, pair 0, among them
        assert float(turns[kept].min()) > 4 and float(turns[kept].min()) > float(turns[~kept].max()), name
    pi = hf_inv_freq(d, rope_type="linear", rope_theta=base, factor=8.0)
    assert not torch.isclose(pi.double(), own, rtol=1e-6, atol=0).any()


def test_longer_inputs_main_line_gives_the_slowest_pairs_divisors():
    """The main line (read r186: rebuilt as a learner's text, lesson first; read r191: the lesson is what the three
    rules do to the slowest and the fastest pairs): :data:`LESSON`, "Position interpolation, `llama3` and YaRN all
    slow a head's slowest pairs; only position interpolation also slows its fastest pairs", run below in transformers'
    `linear`, `llama3` and `yarn` on Llama 3.1's head (every slow pair divided by more than 1; pairs 0 to 18 divided by
    8 by PI, kept by the other two); then :data:`SLOW_PAIR_CLAUSE`, which defines *slow pair* before the term is used
    (read r188), and :data:`FASTEST_PAIR_LINES`. Then the example, :data:`FIXED_RULES`: "Take a head like Llama 3.1's,
    with `factor` 8. All three rules divide its slowest pair's frequency by 8, enough to keep that pair within the
    angles training at $L$ showed for inputs up to about $8L$"
    (with the frequency divided by 8, the slowest pair's last angle stays in its trained arc up to 8(L - 1) + 1
    tokens, within a thousandth of 8L), and a table of what each rule does to pair 0, the fastest: PI divides it by 8
    (:data:`PI_FASTEST_ROW`), `llama3` and YaRN keep it. This main line leaves L's value, the input of 2L, "turns in
    $L$" and dynamic NTK's 9 to the collapsed worked example and its next block, and the stretch, the extension and
    effective factors to the section's three numbers' table, above the term table (read r197); its numbers equal the
    worked example's (the first three of its four rules' rows, which hold the "(\\ell - 1)/(L - 1)" condition) and are
    run below in transformers. The worked example's
    dynamic NTK: transformers' `dynamic` divides pair 0 by 1 at lengths from L/2 to 64L, and its slowest pair by the
    block's formula at each length from 1.25L to 64L, more at each longer one; at L/2 and at L it leaves the slowest
    pair alone, where the formula would give at most 1. At 2L both PI and dynamic NTK divide the slowest pair by more
    than the stretch, so it meets no new angle, and they slow most other pairs more than they need; past sL PI's slowest
    pair does meet new angles (at 16L with s = 8), dynamic NTK's does not, at any length checked.

    The stretch row's formula at the column's length gives the 2, and 1 for a shorter input. The two effective factors
    are transformers' `linear` and `dynamic` (with $L$ as `max_position_embeddings`) on two heads, Llama 3.1's and a
    128-wide head of base 10 000: the main line names no head, so the numbers must not depend on one. PI's is the same
    at other lengths, dynamic NTK's is not. Every slow pair (the slow pair row's words, the fast pair row's inequality)
    needs a divisor of (2L - 1)/(L - 1) to stay within its training arc: within a thousandth of the stretch and not
    below it. Each rule divides the slowest pair by more, so its largest angle stays within training's, and divides more
    than half of the other pairs by more than they need (no division if fast, (2L - 1)/(L - 1) if slow). The costs block
    names two costs, one bullet each."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    # the section opens with its lesson (read r199: :data:`LONGER_LESSON`, checked in
    # test_longer_inputs_opens_with_what_most_rules_divide_and_keep), then one sentence of letters, the three numbers'
    # table under it (read r197: it was the worked example's, collapsed, though it is what tells s, the stretch and the
    # effective factor apart), then its main line on Llama 3.1's head, the subsection right under that table (read
    # r201: it came after the term table, whose rows lean on it), then the term table
    longer = raw[raw.index("(glossary-longer)=\n## Longer inputs\n") : raw.index(f"\n{EXAMPLE}\n") + 1]
    paragraphs_longer = [" ".join(p.split()) for p in longer.split("\n\n")[1:]]
    assert paragraphs_longer[0] == LONGER_LESSON, longer
    # read r200: the letters' sentence gives L and l; s is the three numbers' table's first row, right under it
    assert paragraphs_longer[1] == "Below, $L$ is a model's *trained length* and $\\ell$ an input's length.", longer
    # read r203: then the slow and fast pairs, defined at the section's top, right after the letter their definition
    # needs, and before the three numbers' table, whose effective factor speaks of the slowest pair
    # fix pass 275 (read r272b #3, unclear: slow, fast, kept and ramp and three index ranges came before the section's
    # clearest part): the three numbers' table and its note right after the letters, then that paragraph
    # fix pass 287 (read r282a #3, unclear: two tables before the idea): the slow and fast pairs first, then the
    # three numbers' table, on the main line still
    # fix pass 258 (read r253b #4); fix pass 258b (read r258b #1: the clash named, not resolved): which s is whose
    # fix pass 282 (read r278b #3, unclear: the notation clash on the main line): the note is the Letters section's
    # fix pass 279 (reads r275a #3 and r275b #2): the Llama 3.1 head and its pair numbers moved to the example
    assert paragraphs_longer[2] == " ".join((SLOW_PAIR_CLAUSE, FASTEST_PAIR_LINES)), longer
    assert paragraphs_longer[3] == "Three numbers are easy to mix up:", longer
    assert "| *extension factor* $s$ | the configuration's `factor` |" in paragraphs_longer[4], longer
    assert paragraphs_longer[5:] == [""], longer
    # read r191: "A worked case follows the table" was false (five blocks came between); the section says nothing of it
    assert "A worked case follows" not in raw
    assert raw.index(EXAMPLE) < raw.index("(glossary-longer-terms)=")
    section = example_section(raw)
    visible = re.sub(r"\s+", " ", re.sub(r"<details>.*?</details>", " ", section, flags=re.S))
    # one idea per paragraph: what the three rules do, the example head and its table (read r186: the lesson first,
    # each term it needs before its use, chapter 8's runs in a block; read r203: the slow and fast pairs' definitions
    # moved up to the section's top, so the subsection opens with :data:`LESSON`)
    paragraphs = [re.sub(r"\s+", " ", p) for p in section.split("\n\n")]
    assert paragraphs[1].startswith(LESSON + " " + FIXED_RULES), paragraphs[1]
    top_visible = " ".join(longer.split())
    assert ONE_SIDED_ARC in top_visible and ONE_SIDED_ARC not in block(WE)
    # read r188: the term *slow pair* is defined before the main line first uses it, and the lessons before the
    # definition do without it (read r203: no term at all in :data:`LONGER_LESSON`)
    assert top_visible.lower().index("slow pair") == top_visible.index("*slow pair*") + 1, top_visible[:400]
    assert top_visible.lower().index("fast pair") == top_visible.index("*fast pair*") + 1, top_visible[:400]
    assert "slow pair" not in LONGER_LESSON and "pair" not in LONGER_LESSON.split("RoPE's pairs")[0]
    assert "slow pair" not in LESSON and "slowest pairs;" in LESSON
    # the Llama 3.1 subsection's main line names only L; the three numbers are defined on the section's main line, at
    # its top: the first "stretch", "extension factor" and "effective factor" on the page from the section on are their
    # table rows' labels (read r200: the lead sentence no longer repeats the extension factor's row); the worked
    # example no longer holds the table
    top = " ".join(longer.split())
    for term in ("stretch", "extension factor", "effective factor"):
        assert term not in visible, term
        after = " ".join(raw[raw.index("(glossary-longer)=") :].split())
        first = after.index(term)
        assert first == after.index(f"| *{term}*") + 3, term
    assert "| number |" not in block(WE) and "Three numbers" not in block(WE)
    assert "| number |" not in visible
    assert "PI whose effective factor is the current input's *stretch*" in row("dynamic PI")  # the two rules'
    assert "YaRN with the current input's *stretch* as its `factor`" in row("dynamic YaRN")  # own rows
    ((main_stretch, config_word, slowest),) = re.findall(
        # fix pass 275 (read r272b #3): the three numbers' table right after the letters, the slow pairs after its note
        # fix pass 287 (read r282a #3): the slow and fast pairs, then the three numbers' table
        r"an input's length\. "
        + re.escape(" ".join((SLOW_PAIR_CLAUSE, FASTEST_PAIR_LINES)))
        + r" Three numbers are easy to mix up: \| number \| what it is \|"
        # fix pass 231 (read r230 #1: "the same for every input" met dynamic PI and dynamic YaRN, which use the
        # stretch as their factor; the rows below define both): the stretch's row first, then the factor's, which
        # names the two rules that put the stretch in its place
        r" set by \| \|---\|---\|---\| \| \*stretch\* \|"
        r" the input's length over \$L\$, (never below 1) \| the input \| \| \*extension factor\*"
        # fix pass 251 added dynamic NTK's slope here (read r245b #3); fix pass 253 took it out again (reads r251,
        # r251b, r252 and r252b: the clause named rules the main line has not defined; the block "When a rule's
        # effective factor is s or the stretch" gives dynamic NTK's)
        # fix pass 258 (read r253 #2: "put the stretch in its place" read as every dynamic rule): "two dynamic rules";
        # and (read r253b #4) the letter clash the table warns of, one sentence under it (the Letters block's s row)
        # fix pass 259 (read r259 #2: dynamic NTK uses both): what each dynamic rule does with the factor
        # fix pass 264 (read r263 #1, unclear: a definition table carried rule-by-rule exceptions): the row's plain
        # definition; what each dynamic rule does with `factor` is the block "When a rule's effective factor is s or
        # the stretch"'s (test_dynamic_rules_put_the_stretch_in_factors_place_or_combine_the_two)
        r" \$s\$ \| the (configuration's `factor`) \| the configuration \| \|"
        r" \*effective factor\* \| what a rule divides the (slowest) pair's frequency by \|"
        # fix pass 282 (read r278b #3): the note on s left the main line for the Letters section
        r" the rule, and for a dynamic rule also the input \|$",
        top,
    )
    # the worked example goes on from its opening to the rules without the table
    assert "whose 9 the next block derives. A rule divides each pair's" in block(WE)
    lead = re.findall(
        r"^### How these terms fit together: Llama 3\.1's head "
        + re.escape(LESSON)
        + r" Give that head a `factor` of (\d+)\. All (three) rules divide its slowest pair's frequency"
        # fix pass 286 (read r281a #3): the 8L bound says it keeps the slowest pair within the angles training showed
        r" by (\d+), enough to keep that pair within the angles training at \$L\$ showed for inputs up to about"
        r" \$(\d+)L\$\. They differ on the fastest pair:"
        r" \| rule \| what it does to pair 0, the fastest pair \| \|---\|---\|"
        r" \| \*position interpolation\* \| divides its frequency by (\d+), so a key \$r\$ positions back gets the"
        r" angle of a key \$r/(\d+)\$ back \|"
        r" \| `llama3` \| \*keeps\* it: its frequency is unchanged \|"
        r" "
        + re.escape(YARN_FASTEST_ROW)
        # fix pass 279 (reads r275a #3 and r275b #2): the head and its pair numbers, moved here from the opening
        + re.escape(" " + LLAMA_HEAD + " " + LLAMA_FAST_NOT_KEPT + " " + FLAT_PAIRS_TABLE)  # fix pass 286 (r281a #5)
        + re.escape(" " + YARN_FEWER_16L)  # fix pass 282 (r278a #2, #3)
        + "$",
        visible.strip(),
    )
    assert len(lead) == 1, visible
    main_factor, main_rules, main_slowest, main_reach, fast_pi, main_over = lead[0]
    assert FIXED_RULES in visible and PI_FASTEST_ROW in visible
    # the three rules divide the slowest pair alike: one number on the main line, each rule's own in the block
    main_pi = main_llama3 = main_yarn = main_slowest
    fast_l3 = fast_yarn = "1"  # "*keeps* it": a divisor of 1
    assert main_over == fast_pi == main_factor, (main_over, fast_pi, main_factor)
    # the main line's L and input length are the block's: "with $L = 8192$, Llama 3.1's trained length", an input of
    # 2L, and its stretch
    ((main_times, main_L),) = re.findall(
        r"Each rule gets `factor` = \d+ and an input of \$(\d)L\$ tokens, with \$L = (\d+)\$, Llama 3\.1's trained"
        r" length\.",
        re.sub(r"\s+", " ", block(WE)),
    )
    (main_two,) = re.findall(r"Here the stretch is (\d+)\.", re.sub(r"\s+", " ", block(WE)))
    # "enough to keep that pair within the angles training at L showed for inputs up to about 8L" (fix pass 286):
    # with its frequency divided by 8, the slowest pair's last angle stays within
    # the arc training showed it, (L - 1) theta, for every input up to 8(L - 1) + 1 tokens, within a thousandth of 8L,
    # and leaves it one token later; Llama 3.1's slowest pair itself, which turns less than once in L
    reach_theta = float(posenc.rope_inv_freq(128, 500_000.0, dtype=torch.float64)[-1])
    L_ = int(main_L)
    longest = int(main_slowest) * (L_ - 1) + 1
    assert abs(longest - int(main_reach) * L_) < 1e-3 * int(main_reach) * L_ and main_reach == main_slowest, longest
    assert (longest - 1) * reach_theta / int(main_slowest) <= (L_ - 1) * reach_theta * (1 + 1e-12)
    assert longest * reach_theta / int(main_slowest) > (L_ - 1) * reach_theta
    assert (L_ - 1) * reach_theta < 2 * math.pi  # a slow pair: its trained arc is not the whole circle
    # the lesson: each of the three divides every slow pair's frequency by more than 1, and only PI divides the fastest
    # pairs: `llama3` and YaRN keep pairs 0 to 18, which PI divides by 8
    l_d_, l_base_, l_L_, l_s_ = llama31_head()
    theta_ = posenc.rope_inv_freq(l_d_, l_base_, dtype=torch.float64)
    slow_ = (l_L_ - 1) * theta_ < 2 * math.pi
    rules_ = {
        "linear": hf_inv_freq(l_d_, rope_type="linear", rope_theta=l_base_, factor=l_s_).double(),
        "llama3": hf_llama3(l_d_, l_base_, l_s_, 4.0, 1.0, l_L_).double(),
        "yarn": hf_inv_freq(
            l_d_, rope_type="yarn", rope_theta=l_base_, factor=l_s_, original_max_position_embeddings=l_L_
        ).double(),
    }
    for name_, freqs_ in rules_.items():
        assert bool((theta_[slow_] / freqs_[slow_] > 1 + 1e-3).all()), name_
    fastest_ = slice(0, 19)
    assert torch.allclose(theta_[fastest_] / rules_["linear"][fastest_], torch.full((19,), l_s_, dtype=torch.float64))
    for name_ in ("llama3", "yarn"):
        assert torch.allclose(rules_[name_][fastest_], theta_[fastest_], rtol=1e-6, atol=0), name_
    # :data:`FASTEST_PAIR_LINES`' "`llama3` and YaRN keep the fastest ones" (read r192: not every fast pair): each keeps
    # a run of pairs from pair 0, all of them fast, and slows the fast pairs that turn fewest times (llama3 29 to 34,
    # YaRN 19 to 34; fix pass 268, read r267 #2: the main line's new words)
    fast_ = [i for i in range(l_d_ // 2) if not bool(slow_[i])]
    for name_ in ("llama3", "yarn"):
        kept_ = [i for i in range(l_d_ // 2) if abs(float(theta_[i] / rules_[name_][i]) - 1) < 1e-6]
        assert kept_ == list(range(len(kept_))) and 0 < len(kept_) < len(fast_), (name_, kept_, fast_)
        assert set(kept_) < set(fast_), (name_, kept_)
    # the main line's YaRN row, run in transformers' own `yarn` (its default betas, as no config of Llama 3.1's sets
    # them): it divides the slowest pair by `factor` and keeps the fastest, at any length (a fixed rule)
    yarn_params = {"rope_type": "yarn", "rope_theta": 500_000.0, "factor": float(main_factor)}
    yarn_params["original_max_position_embeddings"] = int(main_L)
    yarn_freqs = hf_inv_freq(128, max_position_embeddings=int(main_factor) * int(main_L), **yarn_params).double()
    yarn_theta = posenc.rope_inv_freq(128, 500_000.0, dtype=torch.float64)
    assert abs(float(yarn_theta[-1] / yarn_freqs[-1]) - int(main_yarn)) < 1e-4 * int(main_yarn), yarn_freqs[-1]
    assert float(yarn_freqs[0]) == float(yarn_theta[0]) == 1.0 and int(fast_yarn) == 1
    assert main_yarn == main_factor and int(main_yarn) >= 2 * int(main_two)
    # "divides the slowest pair's frequency by well over $\ell/L = 2$, so here": ell/L at ell = 2L is the stretch,
    # 2; every divisor in the table is above the
    # stretch, and here it also reaches the exact condition of the worked example, (l - 1)/(L - 1) = 16383/8191 ~
    # 2.0001, just above the stretch; "well above": each divisor is at least twice that condition (8 against 2.0001)
    assert all(int(value) > int(main_two) for value in (main_pi, main_llama3)), main_two
    exact = (int(main_times) * int(main_L) - 1) / (int(main_L) - 1)
    assert int(main_two) < exact < int(main_two) * 1.001 and min(int(main_pi), int(main_llama3)) >= exact, exact
    assert min(int(main_pi), int(main_llama3)) >= 2 * exact, exact  # "well above", not merely above
    # the slowest pair's largest angle at 2L, divided by each rule's factor, stays within its trained one: the
    # "so here", against Llama 3.1's slowest frequency itself, not only the ratio
    slow_theta = float(posenc.rope_inv_freq(128, 500_000.0, dtype=torch.float64)[-1])
    for value in (main_pi, main_llama3):
        assert (int(main_times) * int(main_L) - 1) * slow_theta / int(value) <= (int(main_L) - 1) * slow_theta
    assert "$(\\ell - 1)/(L - 1)$, the input's last distance over training's last" in block(WE)
    assert "dynamic NTK" not in visible and "9 at" not in visible  # dynamic NTK's 9, with its formula, in the block
    assert main_pi == main_llama3 == main_factor  # "8, the `factor`"
    # Llama 3.1's config: its trained length and `factor`; `llama3` with its bounds divides the slowest pair by 8
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]["rope_scaling"]
    assert int(main_L) == llama["original_max_position_embeddings"] and int(main_factor) == llama["factor"], llama
    l_d, l_base, l_L, l_s = llama31_head()
    l_theta = posenc.rope_inv_freq(l_d, l_base, dtype=torch.float64)
    l3 = hf_llama3(l_d, l_base, l_s, llama["high_freq_factor"], llama["low_freq_factor"], l_L).double()
    assert abs(float(l_theta[-1] / l3[-1]) - int(main_llama3)) < 1e-4 * int(main_llama3)
    # the table's second column, the fastest pair's divisor: transformers' `linear` (PI) divides it by `factor`, and
    # `llama3` keeps it (divisor exactly 1); the fastest pair (largest frequency, pair 0) is a fast pair (a full turn
    # over offsets 0 to L - 1, the fast pair row's inequality)
    fastest_pair = int(torch.argmax(l_theta))
    assert fastest_pair == 0 and (l_L - 1) * float(l_theta[fastest_pair]) >= 2 * math.pi
    # "it turns at least once, so its trained angles go all the way round the circle" (fix pass 266, read r265 #1:
    # was "so training showed it the whole circle"): unscaled, each of this head's fast pairs
    # has a trained arc, 0 to (L - 1) theta_i, of at least a full turn, so every distance from L to 2L - 1 falls
    # inside it, within half a step, theta_i / 2, of one of its trained angles (offsets 0 to L - 1); each slow pair,
    # pairs 35 to 63, meets an angle outside its arc at some distance from L to 2L - 1
    fast_idx = [i for i in range(l_d // 2) if (l_L - 1) * float(l_theta[i]) >= 2 * math.pi]
    assert fast_idx == list(range(35)), fast_idx
    for i in fast_idx:
        th = float(l_theta[i])
        trained = torch.sort(torch.remainder(torch.arange(l_L, dtype=torch.float64) * th, 2 * math.pi)).values
        gaps = torch.cat([trained.diff(), (trained[:1] + 2 * math.pi) - trained[-1:]])
        assert float(gaps.max()) <= th + 1e-9, i  # "all the way round": no gap wider than one step
        past = torch.remainder(torch.arange(l_L, 2 * l_L, dtype=torch.float64) * th, 2 * math.pi)
        ring = torch.cat([trained[-1:] - 2 * math.pi, trained, trained[:1] + 2 * math.pi])  # around the circle
        pos = torch.searchsorted(ring, past)
        near = torch.minimum(past - ring[pos - 1], ring[pos] - past)
        assert float(near.min()) >= 0 and float(near.max()) <= th / 2 + 1e-9, i
        assert float(past.max()) <= (l_L - 1) * th, i  # inside the arc it saw
    for i in range(len(fast_idx), l_d // 2):  # the slow pairs, unscaled: an angle past the arc they saw
        th = float(l_theta[i])
        past = torch.remainder(torch.arange(l_L, 2 * l_L, dtype=torch.float64) * th, 2 * math.pi)
        assert float(past.max()) > (l_L - 1) * th + 1e-12, i
    linear = hf_inv_freq(l_d, rope_type="linear", rope_theta=l_base, factor=l_s).double()
    assert abs(float(l_theta[fastest_pair] / linear[fastest_pair]) - int(fast_pi)) < 1e-6 * int(fast_pi), linear[0]
    assert abs(float(l_theta[-1] / linear[-1]) - int(main_pi)) < 1e-6 * int(main_pi)  # and its slowest by 8 too
    # pair 0's frequency is base**0 = 1 exactly, in float32 and float64: `llama3` leaves it exactly 1
    assert int(fast_l3) == 1 and float(l3[fastest_pair]) == float(l_theta[fastest_pair]) == 1.0
    assert int(fast_pi) == int(main_factor) > int(fast_l3)  # the contrast: PI slows the fastest pair, llama3 does not
    # the worked example's lead, its link to the main line's table: "The main line's table gives only pair 0. This block
    # takes an input of $2L$, goes pair by pair, and adds dynamic NTK, whose 9 the next block derives": its pair is
    # the head's fastest, its ranges (PI: every pair; `llama3`: kept 0 to 28, ramped 29 to 34, divided 35 to 63) start
    # at pair 0 and end at pair 63, the head's slowest, and the divisors they give those two pairs are the main line's,
    # run in transformers; its 9 is the block's dynamic NTK row and the next block's formula, 1 + s(l/L - 1) at l = 2L,
    # s = 8
    ((end_fast, lead_times, lead_nine),) = re.findall(
        r"^The table above gives only pair (\d+)\. This block takes an input of \$(\d)L\$, goes pair by pair, and"
        r" adds dynamic NTK, whose (\d+) the next block derives\.",
        re.sub(r"\s+", " ", block(WE)).strip(),
    )
    end_slow = l_d // 2 - 1
    assert lead_times == main_times, lead_times
    assert int(lead_nine) == 1 + int(main_factor) * (int(main_times) - 1) == 9, lead_nine
    assert f"| *dynamic NTK* | keeps pair 0, divides the slowest by {lead_nine} " in block(WE)
    assert f"| {DYN_NTK_CELL} |" in block(WE) and DYN_NTK_CELL.startswith(f"{lead_nine} at this length,")
    assert f"that is ${lead_nine} = 1 + 8(2 - 1)$" in " ".join(block(DYN).split())
    assert (int(end_fast), int(end_slow)) == (fastest_pair, int(torch.argmin(l_theta))) == (0, l_d // 2 - 1)
    ((kept_0, kept_1, ramp_0, ramp_1, div_0, div_1, div_by),) = re.findall(
        r"\| `llama3` \| keeps pairs (\d+) to (\d+), \*ramps\* (\d+) to (\d+), divides (\d+) to (\d+) by (\d+) \|",
        block(WE),
    )
    assert int(kept_0) == int(end_fast) and int(div_1) == int(end_slow), (kept_0, div_1)
    assert int(kept_1) + 1 == int(ramp_0) and int(ramp_1) + 1 == int(div_0)  # the ranges cover every pair
    ends = (int(end_fast), int(end_slow))
    assert [round(float(l_theta[i] / l3[i]), 4) for i in ends] == [int(fast_l3), int(main_llama3)] == [1, int(div_by)]
    assert [round(float(l_theta[i] / linear[i]), 4) for i in ends] == [int(fast_pi), int(main_pi)]
    # "turns in $L$" is not in the lead: its own row defines it (checked against the angle at offset L in
    # test_llama3_and_yarn_count_turns_over_one_position_more), and every term-table row that uses the count, before
    # or after that row, writes it in italics, the page's mark of a term with its own row
    # fix pass 286 (reads r281a #5 and r281b #2): the pair table's header uses the count, in italics, as a term
    assert re.findall(r".turns in", visible) == ["*turns in"] and "A pair's turns in $L$ are" not in page()
    defined = (
        "| how many *turns*, fractions included, pair $i$ makes over $L$ positions, $L/\\lambda_i$; YaRN and `llama3`"
        " set their bounds in them |"
    )
    assert defined in row("turns in $L$")
    terms_tables = re.findall(r"^\| English \|.*?(?=\n\n|\Z)", raw, flags=re.S | re.M)
    users = [
        line
        for table in terms_tables
        for line in table.splitlines()[2:]
        if "turns in $L$" in line and not line.startswith("| turns in $L$ |")
    ]
    assert len(users) == 3 and all(line.count("turns in $L$") == line.count("*turns in $L$*") for line in users)
    # YaRN's and llama3's bounds are in turns in L: both rows say so
    assert "in *turns in $L$*" in row("betas") and "in *turns in $L$*" in row("Llama 3.1 scaling (`llama3`)")
    # the three numbers' table comes before the example that uses them: at the section's top, above the term table
    assert "| number |" in top and page().index(top) < page().index(block(WE))
    # the rules' divisors at 2L with `factor` 8 are the worked example's (collapsed)
    example = re.sub(r"\s+", " ", block(WE))
    ((header_factor, times),) = re.findall(
        r"Each rule gets `factor` = (\d+) and an input of \$(\d*)L\$ tokens", example
    )
    at = times
    ((every, pi_value),) = re.findall(
        r"\| \*position interpolation\* \| divides (every) pair's frequency by (\d+) \| \d+ at any length \|", example
    )
    ((first_pair, dyn_value),) = re.findall(
        r"\| \*dynamic NTK\* \| keeps pair (\d+), divides the slowest by (\d+) and each pair between by less \|",
        example,
    )
    dyn_block = re.sub(r"\s+", " ", block(DYN))  # the block after the worked example: dynamic NTK's 9
    (stretch_value,) = re.findall(r", while the stretch is (\d+)\.", dyn_block)
    assert f"Here the stretch is {stretch_value}. Each rule divides the slowest pair by more than that:" in example
    # the main line's example sentence: the block's stretch, its three rules' divisors of the slowest pair
    (llama3_value,) = re.findall(
        r"\| `llama3` \| keeps pairs 0 to \d+, \*ramps\* \d+ to \d+, divides \d+ to 63 by (\d+) \|", example
    )
    (yarn_value,) = re.findall(
        r"\| \*YaRN\*, default \*betas\* \| keeps pairs 0 to \d+, \*ramps\* \d+ to \d+, divides \d+ to 63 by (\d+) \|",
        example,
    )
    rule_rows = re.findall(
        r"\| (\*position interpolation\*|`llama3`|\*YaRN\*, default \*betas\*|\*dynamic NTK\*) \| ", example
    )
    # the main line's three rules are the block's first three rows; the block adds dynamic NTK, above the stretch too
    assert main_rules == "three" and len(rule_rows) == 4, rule_rows
    assert main_two == stretch_value and (main_pi, main_llama3, main_yarn) == (pi_value, llama3_value, yarn_value)
    assert main_times == times and main_factor == header_factor, (main_times, main_factor)
    assert int(dyn_value) > int(stretch_value) and int(dyn_value) != int(main_factor), dyn_value
    assert (
        "In general, a rule keeps the slowest pair within its trained arc when its effective factor reaches"
        " $(\\ell - 1)/(L - 1)$, the input's last distance over training's last, just above the stretch." in example
    )
    # "the input's last distance over training's last": an input of ell tokens ends at distance ell - 1, training at
    # L - 1;
    # dividing the slowest pair by that ratio puts its last angle exactly on training's last
    for n_tokens in (2 * l_L, 3 * l_L + 5):
        last_angle = (n_tokens - 1) * float(l_theta[-1]) / ((n_tokens - 1) / (l_L - 1))
        assert abs(last_angle - (l_L - 1) * float(l_theta[-1])) < 1e-9
        assert n_tokens / l_L < (n_tokens - 1) / (l_L - 1) < n_tokens / l_L * 1.001  # just above the stretch
    fastest = "fastest"  # pair 0: checked below with argmax
    most = "most"  # the costs block's premise: the rules slow most other pairs more than they need
    (main_formula,) = re.findall(r"\*Dynamic NTK\* sets its effective factor to \$([^$]+)\$ past \$L\$\.", dyn_block)
    assert "$F$" not in visible  # F, dynamic NTK's effective factor, only in the worked example
    # "This page never writes the stretch as $s$": each $s$ on the page is `factor`;
    # no "$s$" beside the word stretch, no "s = max(...)" and no "s = ell/L"
    whole = page()
    for said in ("stretch $s", "$s$ the stretch", "$s$, the stretch", "s = \\max", "s = \\ell"):
        assert said not in whole, said
    stretch_8 = "| the *extension factor* `factor` | in chapter 8, the *stretch* of an input of $n$ tokens;"
    assert stretch_8 in letters("$s$")
    assert "Turns here count" not in visible and "Chapter 8 defines" not in visible
    # "chapter 8 does": chapter 8's own definition
    assert "*stretch* $s = \\max(n / L, 1)$" in chapter("08_extrapolation")
    # the general exponent and chapter 8's factor, moved to the worked example
    (power,) = re.findall(
        r"In general it divides pair \$i\$'s frequency by \$F\^\{([^$]+)\}\$, with \$F\$ its effective factor;",
        dyn_block,
    )
    assert first_pair == "0" and fastest == "fastest", (first_pair, fastest)  # theta_i = b^{-2i/d}: pair 0's is largest
    # "1 for pair 0 ... $F$ for the slowest": the row's exponent at i = 0 and at the last pair, i = d/2 - 1
    assert evaluate(power, i=0, d=128) == 0 and abs(evaluate(power, i=63, d=128) - 1) < 1e-12
    assert int(torch.argmax(posenc.rope_inv_freq(128, 5e5, dtype=torch.float64))) == 0
    # "a *fast pair*, one that turns at least once": the fast pair row's words, over training's offsets
    assert "| a pair that turns at least once over training's largest distance, $L - 1$:" in row("fast pair")
    more = "more"  # "rising": checked below, more at each longer length
    s_value = header_factor
    assert "Three numbers describe this" not in visible  # one table, no list of definitions
    # each bullet is its row's definition, in short
    assert f"| $s$, a {config_word}, for the rules with one factor:" in row("extension factor")
    assert "| the number by which a rule divides its slowest pair's frequency for one input:" in row("effective factor")
    assert (slowest, more) == ("slowest", "more"), (slowest, more)
    (formula,) = re.findall(r"\*Dynamic NTK\* sets its effective factor to \$([^$]+)\$ past \$L\$\.", dyn_block)
    assert main_formula == formula, (main_formula, formula)  # the main line's formula is the worked example's
    assert at == times, (at, times)  # the sentence speaks of the table's length
    # the example names Llama 3.1's head; the numbers checked below hold for a second head of another base too
    assert f"- *Dynamic NTK*'s effective factor is 1 up to $L$, then ${formula}$." in models_block(
        "### Terms for longer inputs"
    )  # the row's formula, in its section's block
    assert abs(evaluate(formula, s=float(header_factor), ell=int(times or 1), L=1) - int(dyn_value)) < 1e-12
    s = float(header_factor)
    assert int(s_value) == int(header_factor)
    (stretch,) = re.findall(r"the trained length, \$([^$]+)\$:", row("stretch | 拉伸"))
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND, row("fast pair"))
    assert SLOW_ROW_MEANING[2:] in row("slow pair")
    llama_d, llama_base, llama_L, _ = llama31_head()
    for d, base, L in ((llama_d, llama_base, llama_L), (128, 10_000.0, 4096)):
        ell = int(times or 1) * L
        assert evaluate(stretch, ell=ell, L=L) == int(stretch_value) and evaluate(stretch, ell=L // 2, L=L) == 1
        # the three numbers' table says the row's formula in words, "never below 1" (read r200)
        assert main_stretch == "never below 1" and min(evaluate(stretch, ell=n, L=L) for n in (1, L // 2, L, ell)) == 1
        theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
        slowest = float(theta[-1])
        fast = torch.tensor([bool(evaluate(inequality, L=L, theta=float(th))) for th in theta])
        assert (~fast).any() and fast.any()
        for th in theta[~fast]:  # each slow pair: the least divisor that keeps its angles within training's arc
            least = (ell - 1) * float(th) / ((L - 1) * float(th))
            assert int(stretch_value) <= least < int(stretch_value) * (1 + 1e-3)  # "about the stretch"
        need = torch.where(fast, 1.0, (ell - 1) / (L - 1)).double()
        rules = {}
        for kind, printed in (("linear", pi_value), ("dynamic", dyn_value)):

            def freqs(length, kind=kind, L=L, d=d, base=base):
                return hf_inv_freq(
                    d,
                    max_position_embeddings=L,
                    seq_len=length if kind == "dynamic" else None,
                    rope_type=kind,
                    rope_theta=base,
                    factor=s,
                ).double()

            scaled = freqs(ell)
            divisor = theta / scaled
            # the lead: PI divides every pair by `factor`; dynamic NTK never divides the fastest pair, at any length
            if kind == "linear":
                assert (every, torch.allclose(divisor, torch.full_like(divisor, s), rtol=1e-6)) == ("every", True)
            else:
                for n in (L // 2, L, 3 * L // 2, ell, 4 * L, 64 * L):
                    assert fastest == "fastest" and abs(float(theta[0] / freqs(n)[0]) - 1) < 1e-6, n
                for n in (L // 2, L):  # "past $L$": up to L the slowest pair is left alone; the formula would not be
                    assert abs(float(theta[-1] / freqs(n)[-1]) - 1) < 1e-6, n
                    assert evaluate(main_formula, s=s, ell=n, L=L) <= 1 + 1e-12, n
                assert evaluate(main_formula, s=s, ell=L // 2, L=L) < 1 - 1e-3  # so the qualifier is needed
                divided = []
                for n in (5 * L // 4, 3 * L // 2, ell, 3 * L, 4 * L, 64 * L):  # the slowest pair: the page's formula
                    expected = evaluate(formula, s=s, ell=n, L=L)
                    divided.append(float(theta[-1] / freqs(n)[-1]))
                    assert abs(divided[-1] - expected) < 1e-4 * expected, (n, expected)
                assert all(b > a * (1 + 1e-6) for a, b in zip(divided, divided[1:])), divided  # "by more, the longer"
                for n in (3 * L // 2, ell, 4 * L):  # every pair i: divided by F^{2i/(d-2)}, the row's exponent
                    big_f = evaluate(main_formula, s=s, ell=n, L=L)
                    want = torch.tensor(
                        [big_f ** evaluate(power, i=i, d=d) for i in range(d // 2)], dtype=torch.float64
                    )
                    assert torch.allclose(theta / freqs(n), want, rtol=1e-4, atol=0), n
            assert abs(float(divisor[-1]) - int(printed)) < 1e-4 * int(printed), (kind, d, base, divisor[-1])
            other_lengths = [float(theta[-1] / freqs(n)[-1]) for n in (3 * L // 2, 4 * L)]
            assert all((abs(o - float(divisor[-1])) < 1e-4 * o) == (kind == "linear") for o in other_lengths), kind
            assert float(divisor[-1]) > int(stretch_value) * (ell - 1) / (L - 1)  # "by more", more than it needs
            assert (ell - 1) * float(scaled[-1]) <= (L - 1) * slowest  # "it meets no new angle"
            # "At 2L": at 16L PI's slowest pair meets angles training never showed it, dynamic NTK's does not
            far = 16 * L
            assert ((far - 1) * float(freqs(far)[-1]) > (L - 1) * slowest) == (kind == "linear"), kind
            over = int((divisor[:-1] > need[:-1] * (1 + 1e-3)).sum())
            share = over / (d // 2 - 1)
            assert {"most": share > 0.5, "some": 0 < share <= 0.5, "all": share == 1}[most], (kind, over)
            rules[kind] = float(divisor[-1])
        # the table's point: an effective factor need not equal the stretch or `factor` (dynamic NTK: 9, not 2 or 8)
        assert abs(rules["dynamic"] - int(stretch_value)) > 1 and abs(rules["dynamic"] - s) > 0.5, rules
    costs = block("Slowing pairs has costs: what chapter 8 measured")
    # the setup, then one sentence per cost, then dynamic YaRN's contrast with dynamic PI, and what that contrast does
    # not isolate (test_worked_example_names_two_costs_of_slowing_pairs)
    # fix pass 244: the pair-2 clause is a sentence of its own (read r243b #1), one more ". "
    # fix pass 273 (read r270b #1, omission): the dynamic runs that keep pair 0, one more ". "
    # fix pass 281 (read r277a #3): dynamic PI's retrieval at 2L, 4L and 8L, one more ". "
    # fix pass 282 (read r278b #6): the head and the runs' divisors of pairs 1 and 2, one more ". "
    assert "and finds two costs. With `factor` fixed at" in costs and costs.count(". ") == 8
    assert (
        # fix pass 288 (read r283a #4): "with betas 2/1"
        "*Dynamic YaRN* with betas 2/1 keeps pairs 0 and 1, the two fastest, and its loss at $2L$ is about 0.73,"
        " *fine*, with or without its attention factor. It also slows pair 2," in costs
    )


def test_the_three_fixed_rules_divide_by_factor_at_every_length():
    """The main line's :data:`FIXED_RULES`, "All three rules divide its slowest pair's frequency by 8", and the worked
    example's column "8 at any length" at its input of $2L$ (read r188: why 8 where 2 would do). Each of
    transformers' `linear`, `llama3` and `yarn`, on Llama 3.1's head and `factor`, gives the same frequencies whatever
    the configured maximum length or the input's length it is handed, and its rotary module keeps them after a forward
    pass over $L$, $2L$ and $16L$ positions; the slowest pair's divisor is the `factor` each time, and an input of $2L$
    tokens needs only $(2L - 1)/(L - 1)$, about 2 (the worked example's condition), which the `factor` exceeds.

    Then the worked example's last paragraph, on Llama 3.1's own config: "Llama 3.1 itself is configured for inputs of
    up to $16L$, 131 072 tokens, with the same `factor`. Past about $8L$, its slowest pair meets angles that training at
    $L$ never showed. After training at $L$, Llama 3.1 went on training on inputs of up to $16L$; whether that training
    used its scaling is not stated." (review of r188's fix: "used its scaling in training" was unverified; the summary
    says the same as this sentence.) The 16 and 131 072 from posenc/book/models.py's copy of the config (a prose sync)
    and chapter 10's model table; the first distance whose angle, divided by 8, passes the arc training at $L$ showed
    lies within 8 positions below $8L$, and every later distance up to $16L - 1$ passes it too; chapter 10 says that
    Llama 3.1 trained past its $L$, with 131 072 in its "trained" column, and the summary that whether that training
    used the rule is not stated."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    visible = re.sub(r"\s+", " ", re.sub(r"<details>.*?</details>", " ", example_section(raw), flags=re.S))
    assert FIXED_RULES in visible
    # the main line's "All three rules divide its slowest pair's frequency by 8"; the block's "8 at any length" and its
    # input of 2L, which needs only about 2
    (by,) = re.findall(r"All three rules divide its slowest pair's frequency by (\d+),", FIXED_RULES)
    (times,) = re.findall(r"an input of \$(\d+)L\$ tokens", block(WE))
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    scaling = llama["rope_scaling"]
    d, base, L, s = llama31_head()
    assert int(by) == s and "| 8 at any length |" in block(WE)
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    rules = {
        "linear": {"rope_type": "linear", "factor": s},
        "llama3": {
            "rope_type": "llama3",
            "factor": s,
            "high_freq_factor": scaling["high_freq_factor"],
            "low_freq_factor": scaling["low_freq_factor"],
            "original_max_position_embeddings": L,
        },
        "yarn": {"rope_type": "yarn", "factor": s, "original_max_position_embeddings": L},
    }
    need = (int(times) * L - 1) / (L - 1)  # the worked example's (l - 1)/(L - 1) at l = 2L
    assert 2 < need < 2.001 and s > need
    for name, params in rules.items():
        params = {"rope_theta": base, **params}
        runs = [
            hf_inv_freq(d, max_position_embeddings=size * L, seq_len=n * L, **params).double()
            for size in (2, 16, 64)
            for n in (1, 2, 16)
        ]
        assert all(torch.equal(run, runs[0]) for run in runs), name  # fixed: the same at every length
        assert abs(float(theta[-1] / runs[0][-1]) - s) < 1e-6 * s, name  # the slowest pair: by the `factor`
        cfg = LlamaConfig(
            hidden_size=2 * d, num_attention_heads=2, head_dim=d, rope_parameters=params, max_position_embeddings=16 * L
        )
        module = LlamaRotaryEmbedding(cfg)
        before = module.inv_freq.clone()
        x = torch.zeros(1, 1, d)
        for n in (1, 2, 16):
            module(x, torch.arange(n * L)[None])
            assert torch.equal(module.inv_freq, before), (name, n)  # no update from the input's length
    # the worked example's last paragraph: Llama 3.1's own config and training
    example = block(WE)
    ((up_to, tokens, past, trained_up_to),) = re.findall(
        r"Llama 3\.1 itself is configured for inputs of up to \$(\d+)L\$, ([\d ]+) tokens, with the same `factor`\."
        r" Past about \$(\d+)L\$, its slowest pair meets angles that training at \$L\$ never showed\. After training at"
        r" \$L\$, Llama 3\.1 went on training on inputs of up to \$(\d+)L\$; whether that training used its scaling is"
        r" not stated\.$",
        example,
    )
    assert int(up_to) * L == int(tokens.replace(" ", "")) == llama["max_position_embeddings"], (up_to, tokens)
    # fix pass 285 (reads r280a #1 and r280b #2, unclear: 8L and 16L on the main line read as a contradiction): the
    # main line's :data:`YARN_FEWER_16L` gives the same three lengths as this block, in one sentence after the 16L
    # fix pass 286 (read r281a #3, overstated mild: "but ... went on training" read as if that training fixed the
    # new angles): the 8L bound is :data:`FIXED_RULES`'s, where the slowest pair's divisor is stated; after the table,
    # the declared 16L and the later training "on inputs that long", the block's 16L; the block keeps the hedge
    assert re.findall(
        # fix pass 287 (read r282a #4 and r282b #3): the 8L bound again, then the 16L and the later training
        r"With this `factor`, the slowest pair stays within its trained angles up to about \$(\d+)L\$\. Llama 3\.1 is"
        r" still configured for inputs up to \$(\d+)L\$: after training at \$L\$, it went on training on inputs that"
        r" long\.",
        YARN_FEWER_16L,
    ) == [(past, trained_up_to)] and YARN_FEWER_16L in " ".join(page().split())
    assert re.findall(r"for inputs up to about \$(\d+)L\$\.", FIXED_RULES) == [past] and FIXED_RULES in page()
    assert "but Llama 3.1 went on training" not in page()
    assert int(trained_up_to) == int(up_to) and llama["trained_length"] == int(up_to) * L
    assert llama["trained_length_before"] == scaling["original_max_position_embeddings"] == L
    c10 = " ".join(chapter("10_rope_today").split())
    assert (
        "| Llama 3.1 8B | RoPE + llama3 scaling (factor 8) | 128 / 128 | 500 000 | 131 072 | 8 192 → 131 072 |" in c10
    )
    assert "Whether\nLlama 3.1's long training used its rule is not stated." in (
        ROOT / "book" / "summary.md"
    ).read_text(encoding="utf-8")
    assert "Llama 3.1, Llama 4 Scout, DeepSeek-V2 and V3 and Gemma 3 trained past the length $L$ their scaling" in c10
    # "Past about 8L": the slowest pair, divided by 8, against the arc training at L showed, 0 to (L - 1) theta
    slow = float(theta[-1])
    distances = torch.arange(L, int(up_to) * L, dtype=torch.float64)
    new = distances * slow / s > (L - 1) * slow * (1 + 1e-12)
    first = int(distances[int(torch.argmax(new.double()))])
    assert int(past) * L - 8 <= first < int(past) * L and bool(new[distances >= first].all()), first
    assert float(distances[-1]) * slow / s < math.pi  # no wrap: each later angle is past the arc, not back in it
    # "so its training showed those angles too": trained at up to 16L with the scaled frequency, its arc reaches the
    # last distance of any such input
    assert (int(trained_up_to) * L - 1) * slow / s >= float(distances[-1]) * slow / s


def test_critical_dimension_row_is_twice_the_fast_pairs():
    """The row "critical dimension": "in Liu et al. 2023, the number of a head's dimensions whose pairs turn at least
    once in $L$ positions; Llama 3.1's head has 70", chapter 5's and chapter 10's words, with the block "Turns in L
    and the fast pairs' distances": "In Llama 3.1's head the two counts agree: pairs 0 to 34 are fast and turn at
    least once in $L$, so its *critical dimension* is 70. They differ only for a pair that turns once in $L$ but not
    in $L - 1$." In Llama 3.1's head the pairs that turn once in $L$ are exactly the fast pairs (the fast pair row's
    inequality), and twice their count is the row's and the block's number; and chapter 5's "92 for $d = 128$,
    $b = 10^4$ and 4096 tokens", recomputed; at those settings and in Llama 3.1's head, twice the number of fast pairs
    (the fast pair row's inequality) is the same count. "unless": over a sweep of trained lengths the two counts differ
    exactly when some pair turns once in $L$ but not in $L - 1$ positions, and such lengths exist."""
    (llama_dims,) = re.findall(
        r"^\| critical dimension \| 临界维度 \| in Liu et al\. 2023, the number of a head's dimensions whose pairs"
        r" turn at least once in \$L\$ positions; Llama 3\.1's head has (\d+) \|",
        row("critical dimension"),
    )
    ((first, last, block_dims),) = re.findall(
        # fix pass 285 (reads r280a #2 and r280b #1): "sort Llama 3.1's pairs alike"
        r"The two counts sort Llama 3\.1's pairs alike: pairs (\d+) to (\d+) are fast and turn at least once in \$L\$,"
        r" so its \*critical dimension\* is (\d+)\. They differ only for a pair that turns once in \$L\$ but not in"
        r" \$L - 1\$\.",
        block("Turns in L and the fast pairs' distances"),
    )
    assert block_dims == llama_dims, (block_dims, llama_dims)
    c5, c10 = chapter("05_decay"), chapter("10_rope_today")
    ((dims, d, exp, L),) = re.findall(
        r"call the dimensions whose pairs finish a full turn within the training length the \*critical dimension\*:"
        r" (\d+) for \$d = (\d+)\$, \$b = 10\^(\d)\$ and (\d+) tokens\.",
        c5,
    )
    assert "call the boundary of these pairs the *critical dimension*" in c10
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + FAST_ROW_ROUND, row("fast pair"))
    heads = ((int(d), 10.0 ** int(exp), int(L), int(dims)), (*llama31_head()[:3], int(llama_dims)))
    for width, base, trained, expected in heads:
        theta = posenc.rope_inv_freq(width, base, dtype=torch.float64)
        once = trained * theta >= 2 * math.pi  # a full turn within the trained length
        fast = torch.tensor([bool(evaluate(inequality, L=trained, theta=float(t))) for t in theta])
        # the masks compare turn counts with 1; none lies within 1e-6 of it at L - 1 or L, so a last-bit difference in
        # theta between CPU kernels cannot move a pair across the threshold
        for n in (trained - 1, trained):
            assert float((n * theta / (2 * math.pi) - 1).abs().min()) > 1e-6, (width, base, n)
        assert torch.equal(once, fast), (width, base)  # the same pairs: "which are also its fast pairs"
        assert 2 * int(once.sum()) == 2 * int(fast.sum()) == expected, (width, base, once.sum(), fast.sum())
    # Llama 3.1's head: the pairs that turn once in L are exactly the block's "pairs 0 to 34", the fast pairs
    assert once.nonzero().flatten().tolist() == list(range(int(first), int(last) + 1)), once.nonzero().flatten()
    theta = posenc.rope_inv_freq(128, 10_000.0, dtype=torch.float64)
    edge_lengths = {math.ceil(2 * math.pi / float(t)) for t in theta[:40]}  # L at which a pair just completes a turn
    differ = 0
    for trained in sorted(edge_lengths | set(range(3, 5000, 7))):
        once = int((trained * theta >= 2 * math.pi).sum())
        fast = sum(bool(evaluate(inequality, L=trained, theta=float(t))) for t in theta)
        edge = bool(((trained * theta >= 2 * math.pi) & ((trained - 1) * theta < 2 * math.pi)).any())
        assert (once != fast) == edge, trained
        differ += edge
    assert differ > 0


def test_content_factor_row_is_chapter_5s_largest_jump():
    """The row "content factor": "the factor of RoFormer's decay bound that the query and key set, not the offset: it
    measures how much the pairs' query–key products change from one pair to the next. The block gives the formula"
    (fix pass 267: the idea first; fix pass 272: what it measures, and the formula, with its last change to zero, left
    to the block), and
    the block's "RoFormer's bound on the score is the *content factor* times $d/2$ times the *mean reach*": checked
    below on RoPE's raw
    score, with posenc's rotation, at many offsets, where the bound is tight to within a factor 40; and its formula in
    the block under the Maths table: "Pair $i$'s query–key product in *complex form* is $h_i$: the query's pair,
    conjugated, times the key's" and "The *content factor* is the largest change $\\lvert h_{i+1} - h_i\\rvert$ from
    one pair to the next": chapter 5's definition and its $h_i$; the bound itself is
    :func:`test_mean_reach_bound_counts_d_over_2_partial_sums`'s, which also evaluates it. The note in "Where papers
    and code differ": RoFormer's h_i conjugates the key's pair and turns by (m - n) theta_i; each of its h_i is the
    conjugate of this page's, it gives the same score, and every |h_{i+1} - h_i| is the same."""
    # the row's products are chapter 5's h_i, which the block spells out: the query's pair, conjugated, times the key's
    assert row("content factor") == (
        # fix pass 261 (read r261 #1: the row alone left out the last change, to the appended zero, that the block's
        # summation by parts needs; without it the bound can fail when the last product is the largest)
        # fix pass 267 (read r266b #3, unclear: the row opened on machinery that needs the block): the idea first,
        # the factor the query and key set, then the largest change; checked below against chapter 5 and posenc
        # fix pass 272 (read r269b #4, unclear: the definition read as a formula needing the block's h_i): its plain
        # meaning, the factor the query and key set (the block's product, checked below), what it measures, and the
        # block for the formula, whose last change to zero is the block's
        "| content factor | 内容因子 | the factor of RoFormer's decay bound that the query and key set, not the offset:"
        " it measures how much the pairs' query–key products change from one pair to the next. The block gives the"
        " formula |"
        " {doc}`5 <../notebooks/05_decay>` |"
    )  # read r186: the last pair's drop to zero hedged the definition; it is the block's "It also counts a last change"
    # "the one set by the query and key alone, not by the offset": chapter 5's C(q, k), over products h_i of the
    # unrotated pairs, and "one set by the content and one by the distance"; the bound's other factor, the mean
    # reach, is posenc's function of the width, the offsets and the base, with no query or key
    c5_bound = chapter("05_decay")
    assert "$C(q, k) = \\max_i |h_{i+1} - h_i|$" in c5_bound and "h_i = \\overline{q_{[i]}}\\,k_{[i]}" in c5_bound
    assert "a product of two factors, one set by the content and one by the distance" in c5_bound
    assert list(inspect.signature(posenc.rope_decay_bound).parameters) == ["head_dim", "distances", "base"]
    assert "h_i = \\overline{q_{[i]}}\\,k_{[i]}, \\qquad r = n - m" in chapter("05_decay")
    # the block under the Maths table, after the row, holds the formulas and the appended zero
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    named = "<details><summary>RoFormer's bound, and what chapter 5 finds about the decay</summary>"
    assert raw.count(named) == 1 and raw.index("| content factor |") < raw.index(named) < raw.index(
        "(glossary-longer)="
    )
    (row_times,) = re.findall(
        # fix pass 251 (read r245 #4: RoFormer bounds the modulus of the complex sum; the score through |Re z| <= |z|)
        r"- RoFormer bounds the modulus of the complex sum \$[^$]+\$ by the \*content factor\* times \$([^$]+)\$ times"
        r" the \*mean reach\*\. ",
        block("RoFormer's bound, and what chapter 5 finds about the decay"),
    )
    # "The score it bounds is chapter 5's ..., the query-key product after rotation": the block's formula, chapter 5's
    # score s(r), written without its letter, which on this page is the extension factor (read r182)
    (score,) = re.findall(
        r"The score, chapter 5's \$([^$]+)\$, the query–key product after rotation, is at most that modulus, so the"
        r" bound holds for it too\.",
        block("RoFormer's bound, and what chapter 5 finds about the decay"),
    )
    assert score == "\\mathrm{Re}\\sum_i h_i e^{\\mathrm{i} r\\theta_i}", score
    raw_page = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    letters_at, papers_at = raw_page.index("(glossary-letters)="), raw_page.index("(glossary-papers)=")
    outside_letters = raw_page[:letters_at] + raw_page[papers_at:]
    assert "$s(r)$" in chapter("05_decay") and "s(r)" not in outside_letters  # the Letters row names chapter 5's s(r)
    assert "RoPE's score $s(r)$ in chapter 5" in letters("$s$")
    assert (
        "- Pair $i$'s query–key product in *complex form* is $h_i$: the query's pair, conjugated, times the key's."
        " - The *content factor* is the largest change $\\lvert h_{i+1} - h_i\\rvert$ from one pair to the next. - "
        in block("RoFormer's bound, and what chapter 5 finds about the decay")
    )
    ((theirs, their_turn, ours, our_turn, same),) = re.findall(
        r"\| \*content factor\* \| RoFormer conjugates the (\w+)'s pair and turns \$h_i\$ by \$\(([^)]+)\)\\theta_i\$;"
        r" this book conjugates the (\w+)'s and turns by \$\(([^)]+)\)\\theta_i\$\. That makes each \$h_i\$ its"
        r" conjugate, so every \$\\lvert h_\{i\+1\} - h_i\\rvert\$, and the bound, stay the (same) \|",
        note("content factor"),
    )
    assert (theirs, their_turn, ours, our_turn) == ("key", "m - n", "query", "n - m"), (theirs, ours)
    c5 = chapter("05_decay")
    assert "the **content factor**, $C(q, k) = \\max_i |h_{i+1} - h_i|$ with $h_{d/2} = 0$." in c5
    assert "h_i = \\overline{q_{[i]}}\\,k_{[i]}" in c5
    # "the query's pair, conjugated, times the key's", in complex form x_0 + i x_1 of each half-layout pair: the
    # real parts sum to q . k, and rotating the query by m theta and the key by n theta multiplies h_i by
    # e^{i (n - m) theta_i}, the arrow of the mean reach's S_j at the offset r = n - m
    g = torch.Generator().manual_seed(3)
    d = 16
    q, k = torch.randn(2, d, generator=g, dtype=torch.float64)
    half = d // 2
    qc, kc = torch.complex(q[:half], q[half:]), torch.complex(k[:half], k[half:])
    h = qc.conj() * kc
    assert abs(float(h.real.sum()) - float(q @ k)) < 1e-12
    theta = posenc.rope_inv_freq(d, 10_000.0, dtype=torch.float64)
    for m, n in ((3, 10), (40, 7)):
        cos, sin = posenc.rope_cos_sin(torch.tensor([m, n]), d, 10_000.0, dtype=torch.float64)
        rotated_q = posenc.apply_rope(q[None], cos[:1].double(), sin[:1].double())[0]
        rotated = float(rotated_q @ posenc.apply_rope(k[None], cos[1:].double(), sin[1:].double())[0])
        arrows = torch.polar(torch.ones(half, dtype=torch.float64), (n - m) * theta)
        assert abs(rotated - float((h * arrows).real.sum())) < 1e-6, (m, n)  # posenc's float32 frequencies
        assert abs(rotated - float((qc * kc * arrows).real.sum())) > 1e-2  # without the conjugate: another number
        # RoFormer's form: the key conjugated, turned by (m - n) theta: the same score, each h_i conjugated
        h_roformer = qc * kc.conj()
        assert torch.allclose(h_roformer, h.conj(), atol=1e-12)
        assert abs(rotated - float((h_roformer * arrows.conj()).real.sum())) < 1e-6, (m, n)
        jumps = [(torch.cat([x, x.new_zeros(1)]).diff()).abs() for x in (h, h_roformer)]
        assert torch.allclose(jumps[0], jumps[1], atol=1e-12)  # every |h_{i+1} - h_i|, so the bound, the same
    # the block's bound on RoPE's raw score |q . k|, rotated by posenc: content factor x (row's d/2) x mean reach
    content = float((torch.cat([h, h.new_zeros(1)]).diff()).abs().max())
    ratios = []
    for m, n in ((0, 0), (5, 6), (2, 30), (100, 3), (7, 900), (1000, 4000)):
        cos, sin = posenc.rope_cos_sin(torch.tensor([m, n]), d, 10_000.0, dtype=torch.float64)
        score = abs(
            float(
                posenc.apply_rope(q[None], cos[:1].double(), sin[:1].double())[0]
                @ posenc.apply_rope(k[None], cos[1:].double(), sin[1:].double())[0]
            )
        )
        chain = torch.polar(torch.ones(half, dtype=torch.float64), (n - m) * theta).cumsum(0).abs()
        bound = content * evaluate(row_times, d=d) * float(chain.mean())  # mean of |S_1| .. |S_{d/2}|
        # RoFormer's Abel bound is content x the sum of |S_j|: the block's factor must turn the mean back into that sum
        assert abs(bound - content * float(chain.sum())) < 1e-9 * bound, (row_times, m, n)
        assert score <= bound + 1e-6, (m, n, score, bound)
        ratios.append(score / bound)
    assert max(ratios) > 1 / 40, ratios  # a bound of the right size, not a loose constant
    # the RoFormer block: "It also counts a last change, from $h_{d/2-1}$ to $h_{d/2} = 0$, a zero that RoFormer
    # appends. With it, *summation by parts* turns the score into changes of $h$ times partial sums, with no term left
    # over": chapter 5's words; with the zero the sum of changes times partial sums equals the score's sum, without it
    # a term h_{d/2-1} S_{d/2} is left over
    assert (
        "- It also counts a last change, from $h_{d/2-1}$ to $h_{d/2} = 0$, a zero that RoFormer appends. With it,"
        " *summation by parts* turns the score into changes of $h$ times partial sums, with no term left over."
        in block("RoFormer's bound, and what chapter 5 finds about the decay")
    )
    assert "With $h_{d/2} = 0$ appended, as RoFormer does, the sum regroups with nothing left over" in c5
    arrows = torch.polar(torch.ones(half, dtype=torch.float64), 37.0 * theta)
    partial = arrows.cumsum(0)  # S_1 .. S_{d/2}
    padded = torch.cat([h, h.new_zeros(1)])
    regrouped = -(partial * padded.diff()).sum()
    assert abs(complex(regrouped - (h * arrows).sum())) < 1e-9
    unpadded = -(partial[:-1] * h.diff()).sum()
    assert abs(complex(unpadded - (h * arrows).sum())) > 1e-3


def test_lower_bound_on_the_base_row_follows_chapter_5():
    """The row "lower bound on the base": "a minimum RoPE base for a context length, from Men et al. 2024's requirement
    that a *matching key*'s expected score stay at or above zero over the whole context": chapters 5's and 10's words,
    and chapter 5's smallest base for 8192 tokens, recomputed: a matching key's expected score, 2 sum_i cos(r theta_i)
    for a standard Gaussian query, stays at or above zero for every r < 8192 at that base, not at base 10^4."""
    assert (
        "| a minimum RoPE base for a context length, from Men et al. 2024's requirement that a *matching key*'s"
        " expected score stay at or above zero over the whole context |" in row("lower bound on the base")
    )
    c5, c10 = chapter("05_decay"), chapter("10_rope_today")
    assert "require $E(r) \\ge 0$ over the whole context, and derive from that a lower bound on the base." in c5
    assert "derive from that a lower bound on the base for a given context length" in c10
    ((length, thousands, units),) = re.findall(
        r"the smallest that keeps \$E\(r\) \\ge 0\$ for every \$r < (\d+)\$ is \$(\d+)\\,(\d+)\$", c5
    )
    smallest = thousands + units
    r = torch.arange(int(length), dtype=torch.float64)
    g = torch.Generator().manual_seed(0)
    for base, keeps in ((float(smallest), True), (1e4, False)):
        theta = posenc.rope_inv_freq(128, base, dtype=torch.float64)
        expected = 2 * torch.cos(r[:, None] * theta).sum(1)
        assert bool((expected >= 0).all()) == keeps, base
    q = torch.randn(20_000, 128, generator=g, dtype=torch.float64)  # the expectation, sampled at one distance
    theta = posenc.rope_inv_freq(128, 1e4, dtype=torch.float64)
    score = (q * (posenc.rope_matrix(300, 128, dtype=torch.float64) @ q.T).T).sum(1)
    assert abs(float(score.mean()) - float(2 * torch.cos(300 * theta).sum())) < 0.5


def test_letters_blocks_stretch_row_quotes_chapter_8s_fixed_factor():
    """The Letters table's row "stretch": "in chapter 8, also a fixed factor: "one stretch for every input", with ×8
    for one fixed at 8": chapter 8's table of words, and the page's stretch row, which depends on the input."""
    ((quoted, mark, value),) = re.findall(
        r"\| stretch \| \$\\max\(\\ell/L, 1\)\$, set by each input \| in chapter 8, also a fixed factor:"
        r' "([^"]+)", with ×(\d+) for one fixed at (\d+) \|',
        letters("stretch"),
    )
    assert mark == value
    assert f"| fixed | {quoted}, short ones included; *×{mark}* marks it fixed at {value} |" in chapter(
        "08_extrapolation"
    )
    assert "$\\max(\\ell/L, 1)$" in row("stretch | 拉伸")


# ---- ALiBi's slopes, the fine-tuned runs' names ---------------------------------------------------------------------


def test_alibi_row_gives_the_slopes_for_a_power_of_two_heads():
    """The core block "In models and code": "In *ALiBi* with $H$ heads, $H$ a power of two, head $h$'s slope is
    $2^{-8(h+1)/H}$, counting from 0. Other head counts take the slopes of the closest lower power of two, then every
    other slope of twice as many heads, as many as are missing. BLOOM's 112 heads get 64 slopes, then 48." The page's
    exponent, evaluated, is posenc's official slopes for 1 to 64 heads, and chapter 6 builds the same; for 12 heads it
    is not, so the qualifier is needed. The rule for other head counts, built from the page's exponent, is posenc's and
    transformers' BLOOM slopes for every head count up to 130; the BLOOM split is 112's, the head count chapter 6 reads
    from BLOOM's config. The ALiBi row keeps one idea, the slope times the distance."""
    from transformers.models.bloom.modeling_bloom import _get_alibi_slopes

    assert row("attention with linear biases (ALiBi)").startswith(
        "| attention with linear biases (ALiBi) | 线性偏置注意力 | each head subtracts from each logit the distance"
        " times a fixed number of its own, its *slope* |"
        " {doc}`6 <../notebooks/06_alibi>` |"
    )  # read r192: the slope, which has its own row right below, in the page's italics
    assert row("slope (ALiBi)").startswith("| slope (ALiBi) | 斜率 | in ALiBi, a head's fixed positive number:")
    text = models_block("## Core terms")
    ((first, then),) = re.findall(
        r"- In \*ALiBi\* with \$H\$ heads, \$H\$ a power of two, head \$h\$'s slope is \$2\^\{-8\(h\+1\)/H\}\$,"
        r" counting from 0\. Other head counts take the slopes of the closest lower power of two, then every other"
        r" slope of twice as many heads, as many as are missing\. BLOOM's 112 heads get (\d+) slopes, then (\d+)\.",
        text,
    )
    bullet = text[text.index("- In *ALiBi*") :]
    assert "$n$" not in bullet[: bullet.index("BLOOM")]  # this page's $n$ is a key's position
    h_here, h_elsewhere = letters("$h$").split(" | ")[1:3]
    assert h_here == (
        "in ALiBi's slopes, a head's index, from 0, with $H$ heads; $h_i$, pair $i$'s query–key product, in the"
        " block on RoFormer's bound"
    )  # both of this page's meanings in "this page"
    assert "- Pair $i$'s query–key product in *complex form* is $h_i$" in block(
        "RoFormer's bound, and what chapter 5 finds about the decay"
    )
    assert "row" not in h_elsewhere and h_elsewhere.startswith("$h_i$, the same product, in chapter 5"), h_elsewhere
    assert "- Pair $i$'s query–key product in *complex form* is $h_i$:" in block(
        "RoFormer's bound, and what chapter 5 finds about the decay"
    )
    power = exponent(text, "slope is $2^")
    c6 = chapter("06_alibi")
    assert "the slopes are $m_h = 2^{-8(h+1)/n}$ for $h = 0, \\dots, n-1$" in c6
    assert (
        "Other head counts start with the slopes of the closest lower power of two, then add every other slope of twice"
        " as many heads, as many as are missing." in c6
    )
    assert "BLOOM has 112 attention heads per layer" in c6

    def slopes(n: int) -> torch.Tensor:
        return torch.tensor([2.0 ** evaluate(power, h=h, H=n) for h in range(n)], dtype=torch.float64)

    for n in (1, 2, 4, 8, 16, 32, 64):
        assert torch.allclose(slopes(n), posenc.alibi_slopes(n).double(), rtol=1e-6, atol=0), n
    assert not torch.allclose(slopes(12), posenc.alibi_slopes(12).double(), rtol=1e-3, atol=0)

    def other(n: int) -> torch.Tensor:
        """The page's rule: the closest lower power of two's slopes, then every other slope of twice as many heads."""
        low = 2 ** int(math.log2(n))
        return torch.cat([slopes(low), slopes(2 * low)[0::2][: n - low]])

    for n in range(1, 131):
        for theirs in (posenc.alibi_slopes(n).double(), _get_alibi_slopes(n, "cpu").double()):
            assert torch.allclose(other(n), theirs, rtol=1e-6, atol=0), n
    low = 2 ** int(math.log2(112))
    assert (int(first), int(then)) == (low, 112 - low) == (64, 48), (first, then)


def test_fine_tuned_row_and_the_runs_names():
    """The row "fine-tuned": "such runs' names end in -FT", and the block "The fine-tuned runs": "RoPE-FT is plain RoPE
    fine-tuned, the PI paper's "direct fine-tuning". PI×8-FT and YaRN×8-FT have `factor` fixed at 8": chapter 8's
    names for the saved run's three fine-tuned methods, its words on RoPE-FT, and the saved fixed factor."""
    assert row("fine-tuned").endswith(
        "before the long tests; such runs' names end in -FT | {doc}`8 <../notebooks/08_extrapolation>` |"
    )
    text = block(C8_BLOCK)
    assert text.removeprefix("The 28 tokens are 16 filler symbols, 10 digits, `KEY` and `QUERY`. ") == (
        'RoPE-FT is plain RoPE fine-tuned, the PI paper\'s "direct fine-tuning". PI×8-FT and YaRN×8-FT have `factor`'
        " fixed at 8."
        # fix pass 280 (reads r276a #3 and r276b #4): the block ends on the grades seed by seed (checked in
        # test_chapter_8_grades_seed_by_seed_at_8l_and_4l)
        # fix pass 285 (read r280a #4): "In this saved run" opens the 8L sentence
        " In this saved run, each loss grade in chapter 8's table at $8L$ holds in every seed. At $4L$, five runs"
        " change grade between seeds: plain RoPE, dynamic PI, dynamic YaRN with betas 32/1, dynamic NTK with factor 2,"
        " and FIRE."
        # fix pass 282 (read r278b #5): the list is the saved run's; two seeds near the bound (checked in
        # test_chapter_8_grades_seed_by_seed_at_8l_and_4l)
        # fix pass 287 (read r282a #1 and r282b #4, unclear: which dynamic YaRN): its betas, and why it matters
        # fix pass 289 (read r284a #1, false minor): the near miss that could add a run, and the one already listed
        " This list comes from this one saved run: at $4L$, seed 3 of dynamic YaRN with betas 2/1 lies about 0.001"
        " nats above the *fine* bound, so a rerun could add that run to the list; seed 0 of dynamic NTK with factor 2,"
        " already on it, lies as close."
    )
    config = load_results("extrapolation", check=False)["config"]
    assert config["finetune"]["methods"] == ["rope", "pi", "yarn"]
    nb = json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert '"rope ft": "RoPE-FT", "rope+pi ft": "PI×8-FT", "rope+yarn ft": "YaRN×8-FT"' in code
    assert "*RoPE-FT* is plain RoPE, which the PI paper calls *direct fine-tuning*." in chapter("08_extrapolation")
    assert "*PI×8-FT* and *YaRN×8-FT* have `factor` fixed at 8" in chapter("08_extrapolation")


# ---- the element-wise count, the decay's doublings, hybrid models, models named in the blocks -----------


def test_element_wise_form_does_about_3d_operations():
    """The row "matrix form (of RoPE)": "the element-wise form multiplies by cos and sin coordinate by coordinate", and
    the Maths block's "The *matrix form* costs $2d^2$ operations per vector, the element-wise form about $3d$": the
    multiplications and
    additions of posenc's element-wise form (transformers' `x * cos + rotate_half(x) * sin`), counted op by op on one
    vector for three widths, are the page's coefficient times d; the only other arithmetic, rotate_half's d/2 sign
    flips, keeps the total within a fifth of it."""

    (coefficient,) = re.findall(
        r"The \*matrix form\* costs \$2d\^2\$ operations per vector, the element-wise form about \$(\d+)d\$\.",
        block("More on bfloat16 angles and the matrix form"),
    )
    assert "; the element-wise form multiplies by cos and sin coordinate by coordinate |" in row(
        "matrix form (of RoPE)"
    )
    for d in (8, 64, 128):
        counts = elementwise_op_counts(d)
        arithmetic = counts.get("mul", 0) + counts.get("add", 0) + counts.get("sub", 0)
        assert arithmetic == int(coefficient) * d, (d, counts)
        assert sum(counts.values()) <= 1.2 * int(coefficient) * d, (d, counts)


def test_decay_block_reaches_about_zero_near_half_the_base():
    """The block on RoFormer's bound: "In chapter 5's 128-wide heads of base 10 000, a *matching key*'s score falls to
    about zero near half the base, on average over each doubling of the distance. A doubling is the distances from
    $2^g$ to $2^{g+1} - 1$, and its mean averages over them and over random *isotropic* queries. [...] The doubling
    from 4096 to 8191, which holds half the base, has a mean of about zero.", then its own bullets (fix pass 273, read
    r270a #1): "Single distances can go negative earlier: the key's expected score is first below zero at distance
    1707." and "Past half the base, the doubling means swing around zero, within about 4.5 % of the score at distance
    0. This is computed exactly over the later doublings, up to chapter 5's last doubling, which ends at $2^{17} - 1$."
    and "Distance by distance, the score does not fall steadily": the expected score E(r) = 2 sum_i cos(r theta_i) of a
    matching key (the lower bound row's test samples it), averaged over each doubling 2^j <= r < 2^(j+1), falls at
    every doubling up to the one that holds b/2, where it is within 1 % of E(0), while the doubling before is still
    above 5 %; E(r) itself is positive at every distance below 1707 and first negative there, about b/6, far before
    b/2; the later doublings up to 2^17 take both signs, and the largest in size is 4.5 % of E(0), rounded; E itself
    rises somewhere before b/2."""
    decay = block("RoFormer's bound, and what chapter 5 finds about the decay")
    ((width, base, share, low, high, holds_share, first_negative, within, ch, upto),) = re.findall(
        # fix pass 264 (read r263b #1, unclear: the bullet packed six numbers before its finding): the finding first,
        # "in chapter 5's heads" (fix pass 234, read r233 #1: not a rule for every head), then what a doubling's mean
        # is, then the numbers, the zero doubling before the first negative distance
        r"- In chapter 5's (\d+)-wide heads of base ([\d ]+), a \*matching key\*'s score falls to about zero near"
        r" (half|a tenth of|twice) the base, on average over each doubling of the distance\. A doubling is the"
        r" distances from \$2\^g\$ to \$2\^\{g\+1\} - 1\$, and its mean averages over them and over random"
        r" \*isotropic\* queries\. The key's expected score is the same at offsets \$r\$ and \$-r\$, so distances"
        r" suffice\. The doubling from (\d+) to (\d+), which holds (half) the base, has a mean of about zero\."
        # fix pass 273 (read r270a #1, unclear: one bullet of about 170 words held four results): one bullet each,
        # the main point first: the single distances, then the later doublings, then Llama 3's head
        r" - Single distances can go negative earlier: the key's expected score is first below zero at distance"
        # fix pass 278 (read r275b #5, overstated: "within 5 %" read as ample margin; the largest is 4.52 %): "within
        # about 4.5 %", the largest doubling mean in size, rounded to a tenth of a percent (checked below)
        r" (\d+)\. - Past half the base, the doubling means swing around zero, within about ([\d.]+) % of the score at"
        r" distance 0\. This is computed exactly over the later doublings, up to chapter (\d)'s last doubling, which"
        r" ends at \$2\^\{(\d+)\} - 1\$\. - Half the base",
        decay,
    )
    assert "- Distance by distance, the score does not fall steadily." in decay
    # "the same at offsets r and -r" (read r173): E(r) = 2 sum_i cos(r theta_i) is even in r
    theta_even = posenc.rope_inv_freq(128, base=1e4).double()
    r_even = torch.arange(1, 5000, dtype=torch.float64)
    torch.testing.assert_close(
        torch.cos(r_even[:, None] * theta_even).sum(1),
        torch.cos(-r_even[:, None] * theta_even).sum(1),
        rtol=0,
        atol=1e-12,
    )  # 64 float64 cosines each: equal up to a few ulps, whatever the CPU's vector kernels
    d, b = int(width), float(base.replace(" ", ""))
    near = b * {"half": 0.5, "a tenth of": 0.1, "twice": 2.0}[share]

    def doubling_means(freqs: torch.Tensor, last: int) -> torch.Tensor:
        """The matching key's expected score E(r) = 2 sum_i cos(r theta_i), its mean over each doubling 2^g to
        2^(g+1) - 1, g = 0 to ``last``, in float64."""
        means = []
        for g in range(last + 1):
            dist = torch.arange(2**g, 2 ** (g + 1), dtype=torch.float64)
            total = sum(float((2 * torch.cos(c[:, None] * freqs).sum(1)).sum()) for c in dist.split(1 << 15))
            means.append(total / len(dist))
        return torch.tensor(means, dtype=torch.float64)

    theta = posenc.rope_inv_freq(d, b, dtype=torch.float64)
    r = torch.arange(1, 2**15, dtype=torch.float64)
    E = 2 * torch.cos(r[:, None] * theta).sum(1)
    trend = doubling_means(theta, 14)  # the doublings 2^g to 2^(g+1) - 1 within r < 2^15
    e0 = 2 * len(theta)  # E(0) = d
    holds = int(math.log2(near))  # the doubling that holds b/2: 4096 <= r < 8192
    assert holds_share == share and (int(low), int(high)) == (2**holds, 2 ** (holds + 1) - 1) and int(low) <= near
    assert (trend[1 : holds + 1] < trend[:holds]).all()  # falls at every doubling up to it
    assert abs(trend[holds]) < 0.01 * e0 < 0.05 * e0 < trend[holds - 1], trend[holds - 1 : holds + 1]
    # "Computed exactly ..., up to chapter 5's last doubling, which ends at $2^{17} - 1$": chapter 5's doublings are
    # j = 0 to 16, the last from 2^16 to 2^17 - 1, and the range computed below ends with that one; "exactly": the
    # matching key's expected score E(r) itself, summed in float64, not a sample mean, and the "within 5 %" is this
    # computation's (chapter 5's own check of one doubling is looser); "within about 4.5 %": the largest in size,
    # rounded to a tenth of a percent
    c5 = chapter("05_decay")
    assert ch == "5" and f"then within 4 of zero up to $2^{{{upto}}}$." in c5, (upto, ch)
    last_j = int(upto) - 1  # chapter 5's last doubling: 2^16 <= r < 2^17
    assert f"$2^j \\le r < 2^{{j+1}}$ for $j = 0, \\dots, {last_j}$" in c5, last_j
    later = doubling_means(theta, last_j)[holds + 1 :]  # "swings around zero": the doublings after it, to the bound
    assert len(later) + holds + 1 == last_j + 1  # ends with chapter 5's last doubling, 2^16 to 2^17 - 1
    assert (later < 0).any() and (later > 0).any(), later
    largest = float(later.abs().max()) / e0
    assert round(100 * largest, 1) == float(within) and 0.044 < largest < 0.046, largest  # "within about 4.5 %"
    before = E[: int(near)]
    assert (before[1:] > before[:-1]).any()  # "not distance by distance"
    # "a single distance's mean first goes negative at 1707": E(r), r from 1, positive below it, negative there
    first = int(first_negative)
    assert (E[: first - 1] > 0).all() and E[first - 1] < 0, E[first - 2 : first]
    assert first < near / 2  # "not for each distance": well before the doubling that holds b/2
    # fix pass 266 (read r265b #5, mildly overstated: "near half the base" could be carried away as a rule; in a
    # 128-wide head of base 500 000 the zero comes a doubling later): "Half the base is only roughly where other heads
    # reach zero. In Llama 3's head, also 128 wide but of base 500 000, the doubling that holds half the base still
    # averages about 3 % of the score at distance 0; the mean first goes below zero in the next doubling." Llama 3's
    # width and base from posenc's copy of its config; E's doubling means computed exactly, as above
    ((l_width, l_base, l_share, l_pct),) = re.findall(
        r"- Half the base is only roughly where other heads reach zero\. In Llama 3's head, also (\d+) wide but of base"
        r" ([\d ]+), the doubling that holds (half) the base still averages about (\d+) % of the score at distance 0;"
        r" the mean first goes below zero in the next doubling\.",
        decay,
    )
    llama3 = MODEL_ROPE_CONFIGS["llama-3-8b"]
    l_b = float(l_base.replace(" ", ""))
    assert (int(l_width), l_b) == (llama3["head_dim"], llama3["rope_theta"]) and int(l_width) == d, llama3
    assert l_share == share == "half"

    l_theta = posenc.rope_inv_freq(int(l_width), l_b, dtype=torch.float64)
    l_holds = int(math.log2(l_b / 2))  # the doubling that holds b/2: 2^17 <= 250 000 < 2^18
    assert 2**l_holds <= l_b / 2 < 2 ** (l_holds + 1)
    l_means = doubling_means(l_theta, l_holds + 1) / (2 * len(l_theta))  # over E(0) = d
    assert round(100 * float(l_means[l_holds])) == int(l_pct), l_means  # "still averages about 3 %"
    assert float(l_means[l_holds]) > 0.01, l_means  # not about zero in the sense checked above for chapter 5's head
    assert bool((l_means[: l_holds + 1] > 0).all()) and float(l_means[l_holds + 1]) < 0, l_means  # "in the next"
    # "only roughly": over other widths and bases, the first doubling whose mean is below zero is the one that holds
    # half the base or the next
    for w, other in ((64, 1e4), (256, 1e4), (128, 5e4), (128, 1e6)):
        holds_other = int(math.log2(other / 2))
        means = doubling_means(posenc.rope_inv_freq(w, other, dtype=torch.float64), holds_other + 1)
        assert bool((means < 0).any()) and int((means < 0).nonzero()[0]) in (holds_other, holds_other + 1), (w, other)


def test_hybrid_row_follows_chapter_1():
    """The row "hybrid model": "a recurrence reads the tokens in order, so its attention layers can do without a
    position encoding, as Kimi Linear's do": chapter 1's "Hybrid models can leave the encoding out of every attention
    layer. Their recurrent layers read the tokens in order, so they carry the order."; the models block's Qwen3-Next
    keeps RoPE, hence can; transformers' Kimi Linear rotates nothing in its softmax (MLA) layers."""
    assert row("hybrid model").startswith(
        "| hybrid model | 混合模型 | a model that mixes softmax attention with recurrent or linear-attention layers; a"
        " recurrence reads the tokens in order, so its attention layers can do without a position encoding, as Kimi"
        " Linear's do |"
    )
    # Kimi Linear: its softmax layers, MLA, take no rotation, beside its linear-attention (KDA) layers
    from transformers.models.kimi_linear import modeling_kimi_linear

    mla = inspect.getsource(modeling_kimi_linear.KimiLinearAttention)
    assert "rotary" not in mla.lower() and "position_embeddings" not in mla and "cos" not in mla, "Kimi Linear MLA"
    assert hasattr(modeling_kimi_linear, "KimiLinearDeltaAttention")
    assert "rotary" not in inspect.getsource(modeling_kimi_linear).lower()
    c1 = chapter("01_why_position")
    assert "Hybrid models can leave the encoding out of every attention layer." in c1
    assert "Their recurrent layers read the tokens in order, so they carry the order." in c1
    assert "gives RoPE only to the others" in models_block("## Attention, kernels and models")


def test_models_named_for_alibi_axial_rope_and_sliding_windows():
    """The models blocks: "BLOOM and MPT use *ALiBi*. Pixtral's vision encoder uses *axial 2-D RoPE*, rope type
    `axial` in transformers." and "Mistral 7B's first release uses *sliding-window attention* over 4096 tokens,
    transformers' default." Each against the installed transformers: BLOOM builds an ALiBi tensor, MPT's config turns
    ALiBi on by default, Pixtral's vision config asks for `axial` and its rotary module pairs half the frequencies with
    each grid axis, and Mistral's config defaults to a 4096-token window. The block's "Heo et al. 2024 also study a
    variant with learned mixed frequencies": chapter 7's words; the axial row holds only the definition."""
    encodings = models_block("## Encodings")
    assert "- BLOOM and MPT use *ALiBi*. Pixtral's vision encoder uses *axial 2-D RoPE*, rope type `axial` in" in (
        encodings
    )
    from transformers.models.bloom import modeling_bloom
    from transformers.models.pixtral import modeling_pixtral

    assert hasattr(modeling_bloom, "build_alibi_tensor")
    assert transformers.MptConfig().attn_config.alibi is True
    config = transformers.PixtralVisionConfig()
    assert config.rope_parameters["rope_type"] == "axial"
    inv_freq, _ = modeling_pixtral.PixtralVisionRotaryEmbedding.compute_axial_rope_parameters(config)
    assert "torch.cat([inv_freq[0::2], inv_freq[1::2]])" in inspect.getsource(
        modeling_pixtral.PixtralVisionRotaryEmbedding.compute_axial_rope_parameters
    )  # half the pairs' frequencies for one axis, half for the other
    assert row("axial 2-D RoPE").startswith(
        "| axial 2-D RoPE | 轴向二维 RoPE | RoPE for image patches: half the pairs turn with the row, half with the"
        " column."
    )
    # fix pass 282 (read r278b #8, omission: a vision encoder's 2-D RoPE read as M-RoPE): two rotary modules, the
    # vision one axial, the language model's M-RoPE with its mrope_section
    assert "In Qwen2-VL and Qwen3-VL, the vision encoder's 2-D RoPE is separate from the language model's *M-RoPE*" in (
        row("axial 2-D RoPE")
    )
    import transformers.models.qwen2_vl.modeling_qwen2_vl as q2
    import transformers.models.qwen3_vl.modeling_qwen3_vl as q3

    assert "axial" in inspect.getsource(q2.Qwen2VLVisionRotaryEmbedding) and "axial" in inspect.getsource(
        q3.Qwen3VLVisionRotaryEmbedding
    )
    assert "mrope_section" in inspect.getsource(q2.Qwen2VLRotaryEmbedding)
    assert "mrope_section" in inspect.getsource(q3.Qwen3VLTextRotaryEmbedding)
    assert "mrope" not in inspect.getsource(q2.Qwen2VLVisionRotaryEmbedding)
    assert (
        "rope type `axial` in transformers. Heo et al. 2024 also study a variant with learned mixed frequencies."
        in " ".join(encodings.split())
    )
    assert "and study it for vision Transformers, next to a variant with learned mixed frequencies." in chapter(
        "07_beyond"
    )
    (window,) = re.findall(
        r"- Mistral 7B's first release uses \*sliding-window attention\* over (\d+) tokens, transformers' default\.",
        models_block("## Attention, kernels and models"),
    )
    assert transformers.MistralConfig().sliding_window == int(window)


# ---- the letters legend under the opening ------------------------------------------------------------


def test_opening_legend_gives_each_letter_the_pages_meaning():
    """The opening: "Letters and words with more than one meaning lists the letters that change meaning" (read r186:
    the opening had sent the learner to the Letters table with a warning that letters change meaning on this page; it
    names the table, whose own sentence says so; read r201: the promise "Each letter is defined where the page first
    uses it" left the main line, which Core terms' letters now open, and is still checked here). For each of the page's
    main letters, the place that defines it comes no later than the letter's first use after the index: Core terms'
    sentence on this page's letters ($m$, $n$ and $i$: read r197 to r200; the offset row's "for a query at position $m$
    and a key at $n$" follows, and the sinusoidal row, which also defines $\\theta_i$, is the first row to use $i$), the
    logit row ($d$), the sinusoidal row ($\\theta_i$), the frequency row ($b$), the Longer inputs lead ($L$, $\\ell$)
    and the three numbers' table under it ($s$, read r200: the lead's repeat of it cut), before its A to Z table, whose
    rows use all three. The Letters table, which Core terms' sentence names, gives other chapters' $i$ and $j$, in
    the cell that uses them; the pairs the page's $i$ counts are the Core table's *rotation pair* row's. The lead's
    words agree with the rows and the subsection's table. Each definition agrees with the Letters table's "meaning here"
    column where it has a row."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    opening = re.sub(r"\s+", " ", raw[: raw.index("<details>")])
    assert (
        "{ref}`Letters and words with more than one meaning <glossary-letters>` lists the letters that change"
        " meaning." in opening
    )
    assert "between rows of this page" not in opening
    body = raw.index("## Core terms")
    # Core terms' sentence (read r200; read r199 had them in a small table on the main line, now in a block under it)
    query, key, pairs = "On this page $m$ is a query's position,", "$n$ a key's,", "and $i$ the index of a *rotation"
    # fix pass 231: the other chapters' i and j are the Letters table's (its $i$ row), which Core terms' sentence names
    other = "a query's position in chapters 1, 3, 6, 8 and 11, with $j$ the key's;"
    pointer = raw.index("Some chapters use other letters: see {ref}`Letters <glossary-letters>`.", body)  # pass 272
    assert raw.index(query, body) < raw.index(key, body) < raw.index(pairs, body) < pointer
    assert pointer < raw.index("| English |", body) and other in letters("$i$")
    assert "for a query at position $m$ and a key at $n$" in row("offset")
    core_table = raw[raw.index("| English |", body) : raw.index("\n\n", raw.index("| English |", body))]
    assert "\n| rotation pair | " in core_table
    assert "two coordinates that RoPE turns together by one angle" in row("rotation pair")  # the pairs $i$ counts
    defined = {
        "$m$": query,
        "$n$": key,
        "$d$": "where $d$ is the width of one attention head",
        "$i$": pairs,
        "$\\theta_i$": "with pair $i$'s *frequency* $\\theta_i",
        "$b$": "with $b$ its *base*",
        "$L$": "Below, $L$ is a model's *trained length* and $\\ell$ an input's length.",
        "$\\ell$": "Below, $L$ is a model's *trained length* and $\\ell$ an input's length.",
        "$s$": "| *extension factor* $s$ | the configuration's `factor` |",
    }
    for letter, where in defined.items():
        at = raw.index(where, body)
        line_start = raw.rindex("\n", 0, at) + 1
        # the page's first use of each letter after the heading: on the line that defines it, or later
        first = raw.index(letter, body)
        assert first >= line_start, (letter, raw[first - 80 : first + 20])
        if letter in ("$m$", "$n$", "$i$"):  # Core terms' sentence holds the letter's first use
            assert at <= first < at + len(where), (letter, raw[first - 80 : first + 20])
    this_page = {
        "$m$": "a query's position",
        "$n$": "a key's position",
        "$d$": "the width of one head",
        "$i$": "a pair's index, from 0",
        "$\\theta_i$": "pair $i$'s frequency",
        "$s$": "the *extension factor* `factor`",
    }
    for letter, cell in this_page.items():
        assert letters(letter).split(" | ")[1].startswith(cell), (letter, letters(letter))
    assert "counting pairs from 0" in row("frequency")
    assert "| $L$, the input length a model was trained at" in row("trained length | 训练长度")
    # the lead's two definitions and the table's $s$ are those of the trained length row, the three numbers' table and
    # the extension factor row (read r200: the stretch's cell says its formula in words, "the input's length over $L$,
    # never below 1": the stretch row's formula is l/L where that is 1 or more, and 1 for every shorter input)
    assert "Below, $L$ is a model's *trained length* and $\\ell$ an input's length." in page()
    assert "| *stretch* | the input's length over $L$, never below 1 | the input |" in page()
    (stretch,) = re.findall(r"the input's length over the trained length, \$([^$]+)\$:", row("stretch | 拉伸"))
    for L in (64, 8192):
        for ell in (1, L // 2, L - 1, L, L + 1, 2 * L, 16 * L):
            value = evaluate(stretch, ell=ell, L=L)
            assert value >= 1 and (value == ell / L or (ell < L and value == 1)), (L, ell, value)
    assert "| *extension factor* $s$ | the configuration's `factor` |" in page()
    assert "| $s$, a configuration's `factor`, for the rules with one factor:" in row("extension factor")
    terms = raw[raw.index("(glossary-longer-terms)=") :]
    terms = terms[: terms.index("\n\n", terms.index("| English |"))]
    assert all(letter in terms for letter in ("$L$", "\\ell", "$s$")), terms  # the table uses all three


def test_streamingllm_row_says_what_chapter_10_says():
    """The row "StreamingLLM": "generation with a *rolling KV cache* that also keeps the first tokens as *attention
    sinks*", and the Attention block's "*StreamingLLM* caches keys unrotated and rotates each by its
    current cache slot" (moved from the row, r177): chapter 10's words for both; its italic terms have rows, and the
    index lists it. The row "rolling KV cache", "a fixed-size
    cache that evicts the oldest tokens, in some designs all but the first few, the *attention sinks*": chapter 10's
    StreamingLLM keeps "the first few, its *sinks*", as the StreamingLLM row and the Attention block's "Chapter 10's
    *rolling KV cache* spares the *attention sinks*" say, so the row names that design. The block's "A key still in a
    *rolling KV cache* is rotated, depending on the
    design, by its place in the text or by its cache slot": StreamingLLM's slot, the next sentence's, is the second."""
    c10 = chapter("10_rope_today")
    (kept,) = re.findall(
        r"\| generation with a \*rolling KV cache\* that also keeps the (first) tokens as \*attention sinks\* \|",
        row("StreamingLLM"),
    )
    ((cached, slot),) = re.findall(
        r"\*StreamingLLM\* caches keys (unrotated|rotated) and rotates each by its current"
        r" (cache slot|text position)\.",
        models_block("## Attention, kernels and models"),
    )
    assert (cached, slot) == ("unrotated", "cache slot"), (cached, slot)
    assert "StreamingLLM caches keys unrotated and rotates them by their current slot." in c10
    assert "StreamingLLM's sinks are kept tokens with positions" in c10
    assert "an early token that attention uses as a default target" in row("attention sink")
    assert row("rolling KV cache") and "{ref}`StreamingLLM <glossary-attention>`" in page()
    ((few,),) = [
        re.findall(
            r"^\| rolling KV cache \| 滚动 KV 缓存 \| a fixed-size cache that evicts the oldest tokens, in some designs"
            r" all but the (first few), the \*attention sinks\* \|",
            row("rolling KV cache"),
        )
    ]
    assert f"It keeps a window of recent tokens and the {few}, its *sinks*" in c10, few
    attention_block = models_block("## Attention, kernels and models")
    assert kept == "first" and "- Chapter 10's *rolling KV cache* spares the *attention sinks*." in attention_block
    # the row's second clause, moved to the block; the design that rotates by the cache slot is named right after it
    # (checked above against chapter 10)
    (place, by_slot) = re.findall(
        r"- A key still in a \*rolling KV cache\* is rotated, depending on the design, by its (place in the text) or"
        r" by its (cache slot)\. \*StreamingLLM\* caches keys unrotated",
        attention_block,
    )[0]
    assert by_slot == slot and attention_block.count("StreamingLLM") == 1, (place, by_slot)


# ---- each fact's consequence, and facts the rows had left out -------------------------------------------------------


def test_longrope_attention_factor():
    """The block "YaRN's and LongRoPE's attention factors, ...": "LongRoPE's attention factor, for $s > 1$, is
    $\\sqrt{1 + \\ln s/\\ln L}$", read from the page and evaluated: transformers' `longrope` attention factor, with no
    `attention_factor` set, at s = 2, 8 and 32 and L = 4096 and 8192; at s = 1 it is 1, so "for $s > 1$". "For
    LongRoPE, transformers 5.24 takes $s$ from `factor` or, when none is set, as `max_position_embeddings` over
    `original_max_position_embeddings`": the installed version, its source, and its attention factor with and without
    `factor`."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    summary = "YaRN's and LongRoPE's attention factors, their names in code, and partial rotary heads"
    (inside,) = re.findall(r"LongRoPE's attention factor, for \$s > 1\$, is \$\\sqrt\{(.+?)\}\$\.", block(summary))

    def page_value(s: float, L: int) -> float:
        text = inside.replace("\\ln s", f"({math.log(s)!r})").replace("\\ln L", f"({math.log(L)!r})")
        return math.sqrt(evaluate(text))

    head = 64
    for L in (4096, 8192):
        for s in (1.0, 2.0, 8.0, 32.0):
            cfg = transformers.LlamaConfig(
                hidden_size=2 * head,
                num_attention_heads=2,
                head_dim=head,
                max_position_embeddings=int(s * L),
                rope_parameters={
                    "rope_type": "longrope",
                    "rope_theta": 10_000.0,
                    "factor": s,
                    "original_max_position_embeddings": L,
                    "short_factor": [1.0] * (head // 2),
                    "long_factor": [s] * (head // 2),
                },
            )
            factor = ROPE_INIT_FUNCTIONS["longrope"](cfg, "cpu")[1]
            if s > 1:
                assert abs(page_value(s, L) - factor) < 1e-9, (s, L, factor)
            else:
                assert factor == 1.0 and abs(page_value(s, L) - 1) < 1e-12  # s = 1: the formula gives 1 too
    # "For LongRoPE, transformers 5.24 takes $s$ from `factor` or, when none is set, as `max_position_embeddings` over
    # `original_max_position_embeddings`": the version, the source's two lines, and runs: with `factor` set, a
    # `max_position_embeddings` of 16 L changes nothing; with none set, s is 16 (and 4 for 4 L)
    assert (
        "For LongRoPE, transformers 5.24 takes $s$ from `factor` or, when none is set, as `max_position_embeddings`"
        " over `original_max_position_embeddings`." in block(summary)
    )
    assert transformers.__version__.startswith("5.24."), transformers.__version__
    from transformers.modeling_rope_utils import _compute_longrope_parameters

    source = re.sub(r"\s+", " ", inspect.getsource(_compute_longrope_parameters))
    assert 'factor = rope_parameters_dict.get("factor")' in source
    assert "if factor is None: factor = config.max_position_embeddings / original_max_position_embeddings" in source
    L = 4096
    for set_factor, stored, s in ((2.0, 16 * L, 2.0), (None, 16 * L, 16.0), (None, 4 * L, 4.0)):
        params = {
            "rope_type": "longrope",
            "rope_theta": 10_000.0,
            "original_max_position_embeddings": L,
            "short_factor": [1.0] * (head // 2),
            "long_factor": [2.0] * (head // 2),
        }
        if set_factor is not None:
            params["factor"] = set_factor
        cfg = transformers.LlamaConfig(
            hidden_size=2 * head,
            num_attention_heads=2,
            head_dim=head,
            max_position_embeddings=stored,
            rope_parameters=params,
        )
        factor = ROPE_INIT_FUNCTIONS["longrope"](cfg, "cpu")[1]
        assert abs(page_value(s, L) - factor) < 1e-9, (set_factor, stored, factor)
    assert "| the number $a$ by which YaRN and LongRoPE multiply RoPE's cos and sin;" in row("attention factor")


def test_mrope_on_text_is_plain_rope():
    """The Encodings block: "Qwen2-VL's `get_rope_index` gives a text token one index on all three axes, so on text
    *M-RoPE* is plain RoPE": transformers' Qwen2-VL `get_rope_index`, for inputs of text alone and of text around an
    image, gives every text token equal time, height and width indices (the image tokens differ), and its rotary
    embedding, given equal indices on the three axes, gives the cos and sin of plain RoPE with the same base and
    width."""
    from types import SimpleNamespace

    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLModel, Qwen2VLRotaryEmbedding

    assert (
        "- Qwen2-VL's `get_rope_index` gives a text token one index on all three axes, so on text *M-RoPE* is plain"
        " RoPE." in models_block("## Encodings")
    )
    merge = 2
    fake = SimpleNamespace(config=SimpleNamespace(vision_config=SimpleNamespace(spatial_merge_size=merge)))
    fake.get_vision_position_ids = lambda *a, **kw: Qwen2VLModel.get_vision_position_ids(fake, *a, **kw)
    for types, grids in (([0] * 9, None), ([0] * 3 + [1] * 6 + [0] * 4, [[1, 2 * merge, 3 * merge]])):
        ids = torch.zeros(1, len(types), dtype=torch.long)
        kwargs = {"image_grid_thw": torch.tensor(grids)} if grids else {}
        positions, _ = Qwen2VLModel.get_rope_index(fake, ids, torch.tensor([types]), **kwargs)
        positions = positions[:, 0]  # (3 axes, tokens)
        text = torch.tensor(types) == 0
        assert torch.equal(positions[0, text], positions[1, text]), types
        assert torch.equal(positions[0, text], positions[2, text]), types
        if grids:
            assert not torch.equal(positions[1, ~text], positions[2, ~text])  # image tokens differ across axes
    d, section, base = 32, [4, 6, 6], 100.0
    cfg = transformers.Qwen2VLTextConfig(
        hidden_size=2 * d,
        num_attention_heads=2,
        rope_parameters={"rope_type": "default", "rope_theta": base, "mrope_section": section},
    )
    rope = Qwen2VLRotaryEmbedding(cfg)
    pos = torch.arange(40)
    cos, sin = rope(torch.zeros(1, 40, d), pos.expand(3, 1, 40))
    ref_cos, ref_sin = posenc.rope_cos_sin(pos, d, base)
    torch.testing.assert_close(cos[0].double(), ref_cos.double(), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(sin[0].double(), ref_sin.double(), rtol=1e-5, atol=1e-5)


def test_logit_rows_chapters_say_logit():
    """The row "logit" (fix pass 230: was "logit (score)") cites chapters 2, 3 and 6: each cited chapter's markdown
    says "logit", and chapter 1, whose markdown never does, is not cited."""
    cited = re.findall(r"\{doc\}`\d+ <\.\./notebooks/(\w+)>`", cells("logit")[3])
    assert [name[:2] for name in cited] == ["02", "03", "06"], cited
    for name in cited:
        assert re.search(r"\blogits?\b", chapter(name)), name
    assert not re.search(r"\blogits?\b", chapter("01_why_position"))


def test_qwen3_vl_gives_each_frame_its_own_grid_and_a_text_timestamp():
    """The Encodings block "In models and code": "Qwen3-VL does not: it gives each frame its own one-frame grid and
    puts the frame's time in the text, as a timestamp such as `<0.5 seconds>`": transformers' Qwen3-VL
    `get_rope_index` splits each video's grid into one grid per frame, each with time extent 1, and its processor
    writes each frame's time as a text timestamp in that format."""
    from transformers.models.qwen3_vl import modeling_qwen3_vl, processing_qwen3_vl

    ((example,),) = [
        re.findall(
            r"- For video, Qwen2\.5-VL advances \*M-RoPE\*'s time axis by a fixed number of positions per second of"
            r" video\. Qwen3-VL does not: it gives each frame its own one-frame grid and puts the frame's time in the"
            r" text, as a timestamp such as `(<[\d.]+ seconds>)`\.",
            models_block("## Encodings"),
        )
    ]
    rope_index = inspect.getsource(modeling_qwen3_vl.Qwen3VLModel.get_rope_index)
    assert "torch.repeat_interleave(video_grid_thw, video_grid_thw[:, 0], dim=0)" in rope_index
    assert "video_grid_thw[:, 0] = 1" in rope_index  # one grid per frame, one frame each
    processor = inspect.getsource(processing_qwen3_vl)
    assert 'video_placeholder += f"<{curr_time:.1f} seconds>"' in processor
    curr_time = float(example.strip("<>").split()[0])
    assert f"<{curr_time:.1f} seconds>" == example


def test_intro_points_citations_to_the_references_page():
    """The intro: "The {doc}`References <references>` page lists citations such as Su et al. 2021.": the link's
    target is a page of the book that lists every entry of references.bib, and Su et al. 2021 is one of them (the
    other citations: :func:`test_citations_name_an_entry_of_the_bibliography`)."""
    assert "The {doc}`References <references>` page lists citations such as Su et al. 2021." in page()
    references = (ROOT / "book" / "references.md").read_text(encoding="utf-8")
    assert "```{bibliography}\n:all:\n```" in references
    assert re.search(r"^\s*- file: book/references\s*$", (ROOT / "_toc.yml").read_text(encoding="utf-8"), re.M)
    bib = (ROOT / "references.bib").read_text(encoding="utf-8")
    assert re.search(r"author\s*=\s*\{\{?Su,[^@]*year\s*=\s*\{2021\}", bib), "Su et al. 2021"


# ---- the learned table's last row -------------------------


def test_learned_position_embedding_row_has_no_row_past_its_last():
    """The row "learned position embedding": "it has no row past its last"; the Encodings block: "Chapter 8's learned
    model, with no row past its table's last, cannot run longer", and "ViT interpolates its rows for larger images":
    chapter 8's own words for its 64-row table, posenc's
    learned table, which has no row past its last, and transformers' ViT, which resizes its position table. The row's
    chapter column links chapter 2, which defines the table, and chapter 8, whose words it quotes."""
    from transformers.models.vit import modeling_vit

    # fix pass 272 (read r269b #5, unclear: a chapter note in the cell): chapter 8's consequence moved to the block
    assert "| a trainable table with one row per position; it has no row past its last |" in row(
        "learned position embedding"
    )
    assert (
        "- Chapter 8's learned model, with no row past its table's last, cannot run longer. - ViT interpolates its"
        " *learned position embedding*'s rows for larger images." in models_block("## Encodings")
    )
    assert "Learned absolute: a table of 64 rows, so it cannot run longer" in chapter("08_extrapolation")
    assert row("learned position embedding").endswith(
        "| {doc}`2 <../notebooks/02_absolute>`, {doc}`8 <../notebooks/08_extrapolation>` |"
    )
    source = inspect.getsource(modeling_vit.ViTEmbeddings.interpolate_pos_encoding)
    assert "interpolate(" in source and "position_embeddings" in source


# ---- the softmax scale row, dynamic NTK's effective factor above `factor` ----------------------------


def test_softmax_scale_row_is_transformers_scaling():
    """The row "softmax scale": "the base multiplier that turns $q \\cdot k$ into the logit, $1/\\sqrt d$ for a head of
    width $d$ in Llama's code; Gemma's can differ and DeepSeek's does, as the blocks on Gemma and DeepSeek say", each
    linked to its block's label, and the block "Other
    models' query and logit scales": "Transformers stores the *softmax scale* as each attention module's `scaling`"
    (the two blocks it points to hold Gemma's `query_pre_attn_scalar` and DeepSeek's
    softmax scale), multiplier $1/\\sqrt d$, so that $q \\cdot k$ times it is the Core row's logit, "usually
    $q \\cdot k/\\sqrt d$" (the scale is applied once, not on top of the logit); and the Attention block's "Gemma 2
    and 3 scale $q \\cdot k$ by one over the square root of `query_pre_attn_scalar`, not of $d$": Llama's attention
    modules set `self.scaling` to head_dim^(-1/2), Gemma 2's and 3's to query_pre_attn_scalar^(-1/2), and a tiny
    Llama's attention equals softmax(q k^T / sqrt(d)) v with that scaling; the index lists the row."""
    from transformers.models.gemma2 import modeling_gemma2
    from transformers.models.llama import modeling_llama

    assert row("softmax scale").startswith(
        "| softmax scale | softmax 缩放系数 | the base multiplier that turns $q \\cdot k$ into the logit, $1/\\sqrt d$"
        " for a head of width $d$ in Llama's code; Gemma's can differ and DeepSeek's does, as the blocks on {ref}`Gemma"
        " <glossary-attention-code>` and {ref}`DeepSeek <glossary-other-scales>` say | $1/\\sqrt d$ |"
    )
    # read r191: the Gemma link landed on the whole Attention section; its target is now the label on the line just
    # above that section's block "In models and code", which holds Gemma's `query_pre_attn_scalar`
    raw_ = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    assert raw_.count("(glossary-attention-code)=") == 1
    attention_ = raw_[raw_.index("(glossary-attention)=") : raw_.index("(glossary-chapter-8)=")]
    assert "\n(glossary-attention-code)=\n<details><summary>In models and code</summary>" in attention_
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    scales = raw[raw.index("(glossary-scales)=") : raw.index("(glossary-attention)=")]
    deepseek = scales[scales.index("<summary>Other models' query and logit scales</summary>") :]
    # the link's target: the label sits on the line just above that block, in this section
    assert "\n(glossary-other-scales)=\n<details><summary>Other models' query and logit scales</summary>" in scales
    assert raw.count("(glossary-other-scales)=") == 1
    assert "The softmax scale is multiplied by the second factor's square" in re.sub(r"\s+", " ", deepseek)
    # the row's code field, in its block: "Transformers stores the *softmax scale* as each attention module's
    # `scaling`", the field checked below in Llama's, Gemma 2's and Gemma 3's attention modules
    assert "- Transformers stores the *softmax scale* as each attention module's `scaling`." in block(
        "Other models' query and logit scales"
    )
    assert raw.index("(glossary-scales)=") < raw.index(
        "<summary>In models and code</summary>", raw.index("(glossary-attention)=")
    )  # Gemma's block is below too
    assert scales.index("| softmax scale |") < scales.index("<summary>Other models' query and logit scales")  # below
    # q . k times the cell is the logit the Core row and the Letters row define: the scale is the logit's own, once
    # fix pass 230: the score's product is in the *score* row, the division in the *logit* row
    ((product,),) = [re.findall(r"^the dot product \$(q \\cdot k)\$ of one query and one key", cells("score")[2])]
    ((root,),) = [re.findall(r"usually the \*score\* divided by \$(\\sqrt d)\$", row("logit"))]
    logit = f"{product}/{root}"
    assert logit == "q \\cdot k/\\sqrt d" and cells("softmax scale")[3] == "$1/\\sqrt d$", logit
    # fix pass 264 (read r263b #7, unclear: the Core row says "usually", this row did not): both say it
    assert letters("logit").startswith(f"| logit | usually ${logit}$ |"), letters("logit")
    # fix pass 260 (read r260 #1, false: the row said chapter 5's bound and plots call the raw q . k a logit; chapter 5
    # writes "logit" only for q . k / sqrt(d)): the same there, and chapter 1's name for it, the score
    assert letters("logit").endswith(
        "| the same in chapter 5; chapter 1 calls it the *score*: its score matrix is $QK^\\top/\\sqrt d$ |"
    ), letters("logit")
    c5 = json.loads((ROOT / "notebooks" / "05_decay.ipynb").read_text(encoding="utf-8"))["cells"]
    c5_text = " ".join(" ".join("".join(c["source"]).split()) for c in c5 if c["cell_type"] == "markdown")
    assert "the usual logits $q \\cdot k/\\sqrt d$" in c5_text and "raw scores $q \\cdot k$ by $\\sqrt d" in c5_text
    assert "S = \\frac{QK^\\top}{\\sqrt{d}}, $$ where $S$ is the score matrix" in chapter("01_why_position")
    assert (
        "- Gemma 2 and 3 scale $q \\cdot k$ by one over the square root of `query_pre_attn_scalar`, a field of its own,"
        " not of $d$;" in models_block("## Attention, kernels and models")
    )
    assert "{ref}`softmax scale <glossary-scales>`" in page()
    llama = re.findall(r"self\.scaling = (.+)", inspect.getsource(modeling_llama.LlamaAttention.__init__))
    gemma = re.findall(r"self\.scaling = (.+)", inspect.getsource(modeling_gemma2.Gemma2Attention.__init__))
    from transformers.models.gemma3 import modeling_gemma3

    gemma3 = re.findall(r"self\.scaling = (.+)", inspect.getsource(modeling_gemma3.Gemma3Attention.__init__))
    assert gemma3 == ["config.query_pre_attn_scalar**-0.5"], gemma3  # "Gemma 2 and 3"
    assert llama == ["self.head_dim**-0.5"] and gemma == ["config.query_pre_attn_scalar**-0.5"], (llama, gemma)
    cfg = transformers.LlamaConfig(
        hidden_size=64, num_attention_heads=2, num_key_value_heads=2, intermediate_size=8, num_hidden_layers=1
    )
    attention = modeling_llama.LlamaAttention(cfg, layer_idx=0)
    assert abs(attention.scaling - 32**-0.5) < 1e-12, attention.scaling  # d = 64 / 2 heads
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 5, 32, generator=g, dtype=torch.float64) for _ in range(3))
    out, _ = modeling_llama.eager_attention_forward(attention, q, k, v, None, scaling=attention.scaling)
    ref = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(32), -1) @ v
    assert torch.allclose(out.transpose(1, 2), ref, rtol=1e-5, atol=1e-6)  # its softmax runs in float32


def test_dynamic_ntk_effective_factor_exceeds_factor_at_2l():
    """The block after the worked example: "At $2L$ with $s = 8$, that is $9 = 1 + 8(2 - 1)$, while the stretch is
    2", and the worked example's table's dynamic NTK row, 9 at this length; transformers' `dynamic`
    with factor 8 divides the slowest pair by 9 at 2L (L its max_position_embeddings), as the printed formula's terms
    give, by more at 3L, and by more than its `factor` 8."""
    text = re.sub(r"\s+", " ", block(WE))
    ((value, one, s_term, ratio, minus),) = re.findall(
        r"At \$2L\$ with \$s = 8\$, that is \$(\d+) = (\d) \+ (\d)\((\d) - (\d)\)\$, while the stretch is 2\.",
        re.sub(r"\s+", " ", block(DYN)),
    )
    formula = int(one) + int(s_term) * (int(ratio) - int(minus))  # the printed 1 + s(l/L - 1), checked below
    assert (
        f"| *dynamic NTK* | keeps pair 0, divides the slowest by 9 and each pair between by less | {DYN_NTK_CELL} |"
        in text
    )
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    L, d = 64, 32
    slowest = []
    for ell in (2 * L, 3 * L):
        cfg = transformers.LlamaConfig(
            hidden_size=2 * d,
            num_attention_heads=2,
            max_position_embeddings=L,
            rope_parameters={"rope_type": "dynamic", "factor": 8.0, "rope_theta": 10_000.0},
        )
        plain = posenc.rope_inv_freq(d, 10_000.0, dtype=torch.float64)
        inv, _ = ROPE_INIT_FUNCTIONS["dynamic"](cfg, "cpu", seq_len=ell)
        slowest.append(float(plain[-1] / inv.double()[-1]))
    assert abs(slowest[0] - int(value)) < 1e-4 and abs(slowest[0] - formula) < 1e-4, (slowest, formula)
    assert slowest[1] > slowest[0] > 8.0, slowest  # more at 3L; above the config's factor 8


def test_hunyuans_dynamic_with_alpha_is_a_fixed_base():
    """The block "In models and code" of "Terms for longer inputs": "HunYuan's configs say `dynamic` but set `alpha`,
    which fixes the base at $b\\,\\alpha^{d/(d-2)}$ for every input: a *static* rule. Transformers runs it as
    `ntk_alpha`": transformers' HunYuan rotary module given such a config, its frequencies against the formula, and
    unchanged by an input past `max_position_embeddings`, where a plain `dynamic` config's change."""
    from transformers.models.hunyuan_v1_dense import modeling_hunyuan_v1_dense as hunyuan

    text = models_block("### Terms for longer inputs")
    (name,) = re.findall(
        r"- HunYuan's configs say `dynamic` but set `alpha`, which fixes the base at \$b\\,\\alpha\^\{d/\(d-2\)\}\$ for"
        r" every input: a \*static\* rule\. Transformers runs it as `(\w+)`\.",
        text,
    )
    d, b, alpha, trained = 16, 10_000.0, 4.0, 32
    small = dict(
        hidden_size=4 * d, num_attention_heads=4, num_key_value_heads=4, head_dim=d, intermediate_size=32,
        num_hidden_layers=1, max_position_embeddings=trained,
    )  # fmt: skip
    expected = 1.0 / (b * alpha ** (d / (d - 2))) ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    long_input = (torch.zeros(1, 8 * trained, d), torch.arange(8 * trained)[None])
    changed = {}
    for params in (
        {"rope_type": "dynamic", "rope_theta": b, "alpha": alpha, "factor": 1.0},
        {"rope_type": "dynamic", "rope_theta": b, "factor": 2.0},
    ):
        rotary = hunyuan.HunYuanDenseV1RotaryEmbedding(
            transformers.HunYuanDenseV1Config(**small, rope_parameters=params)
        )
        before = rotary.inv_freq.clone()
        rotary(*long_input)
        changed["alpha" in params] = not torch.equal(before, rotary.inv_freq)
        if "alpha" in params:
            assert rotary.rope_type == name, rotary.rope_type
            assert torch.allclose(before.double(), expected, rtol=1e-5), (before, expected)
    assert changed == {True: False, False: True}, changed  # alpha: static; plain dynamic: recomputed


def check_half_ulp_bound(theta: torch.Tensor, dtype: torch.dtype, bits: int) -> None:
    """The rows' "bound on the rounding error": half a unit in the last place of the angle $m\\theta_i$ in a format
    with `bits` significant bits. Over positions 1 to 8191 it never falls as $m$ grows, it rises, and every rounding
    error stays within it."""
    m = torch.arange(1, 8192, dtype=torch.float64)[:, None]
    exact = m * theta.double()
    error = (exact.to(dtype).double() - exact).abs()
    bound = 2.0 ** (torch.floor(torch.log2(exact)) - bits)  # half an ulp: 2^(exponent - (bits - 1)) / 2
    # torch may round a float64 to bfloat16 through float32: a second rounding adds at most half a float32 ulp
    slack = 0.0 if dtype == torch.float32 else 2.0 ** (bits - 24)
    assert (error <= bound * (1 + slack)).all(), float((error - bound).max())
    assert (bound.diff(dim=0) >= 0).all() and (bound[-1] > bound[0]).all()  # never falls, and rises in every pair


def test_bfloat16_angles_row_rounds_to_8_bits_and_breaks_the_offset():
    """The row "bfloat16 angles": "RoPE's angles rounded to bfloat16's 8 significant bits; the bound on the rounding
    error grows with the position", its definition alone (read r178), and the Maths block "More on bfloat16 angles and
    the matrix form": "*bfloat16 angles* round each angle on its own rather than the frequency once, so a query and key
    at the same offset can score differently at different positions": bfloat16 keeps 8 significant bits (7 stored, one
    implied); the bound, half a unit in the last place of the angle, never falls as the position grows, and every error
    stays within it; the error itself need not grow (pair 0's angle, $m \\cdot 1$, is exact up to 256), but its largest
    value over a band of positions grows from band to band; and a query and key at the same offset score alike at
    positions 10 and 5000 with exact angles, but not with angles rounded to bfloat16: over seeds 0 to 19 and offsets 1,
    2, 3, 5, 8 and 13, the exact angles' two scores differ by under 1e-9 (at most about 2e-12), the rounded angles' by
    over 1e-2 (at least about 0.15), so the 1e-2 threshold sits more than ten times below the smallest rounded
    difference, not fitted to one draw."""
    ((bits,),) = [
        re.findall(
            r"\| RoPE's angles rounded to bfloat16's (\d+) significant bits; the bound on the rounding error grows with"
            r" the position \|",
            row("bfloat16 angles"),
        )
    ]
    assert (
        "- *bfloat16 angles* round each angle on its own rather than the frequency once, so a query and key at the same"
        " offset can score differently at different positions." in block("More on bfloat16 angles and the matrix form")
    )
    # read r184: the contrast read as if only bfloat16 broke the relative property; float32 angles round each angle
    # too (chapter 4: "Each position is off by its own amount"), with a step 2**16 times finer (8 against 24 bits)
    assert "*float32 angles* do so too, far more finely." in block("More on bfloat16 angles and the matrix form")
    assert torch.finfo(torch.bfloat16).eps / torch.finfo(torch.float32).eps == 2**16
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    maths = raw[raw.index("(glossary-maths)=") : raw.index("(glossary-longer)=")]
    assert "<details><summary>More on bfloat16 angles and the matrix form</summary>" in maths  # the row's section
    assert int(bits) == 1 - round(math.log2(torch.finfo(torch.bfloat16).eps)) == 8, bits
    d, base = 64, 10_000.0
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)

    def angles(pos, rounded):
        angle = torch.tensor(float(pos), dtype=torch.float64) * theta
        return angle.to(torch.bfloat16).double() if rounded else angle

    check_half_ulp_bound(theta, torch.bfloat16, int(bits))
    pair0 = torch.arange(0, 257, dtype=torch.float64)  # theta_0 = 1: integer angles, exact in 8 bits up to 256
    assert theta[0] == 1.0 and torch.equal(pair0.to(torch.bfloat16).double(), pair0)
    assert float(torch.tensor(257.0).to(torch.bfloat16)) != 257.0  # the first integer bfloat16 rounds
    worst = []
    for low in (100, 1000, 10_000):  # "grows with the position": the largest error in each band of positions
        positions = torch.arange(low, 2 * low, dtype=torch.float64)[:, None] * theta
        worst.append(float((positions.to(torch.bfloat16).double() - positions).abs().max()))
    assert worst[0] < worst[1] < worst[2], worst

    def rotate(x, angle):  # posenc's rotation, half layout, with tables built from the given (rounded) angles
        both = torch.cat((angle, angle))
        return posenc.apply_rope(x, both.cos(), both.sin())

    spread = {False: [], True: []}  # rounded or not: each draw's |score at 10 - score at 5000|
    for seed in range(20):
        g = torch.Generator().manual_seed(seed)
        q, k = torch.randn(2, d, generator=g, dtype=torch.float64)
        for offset in (1, 2, 3, 5, 8, 13):
            for rounded in (False, True):
                scores = [
                    float(rotate(q, angles(m, rounded)) @ rotate(k, angles(m + offset, rounded))) for m in (10, 5000)
                ]
                spread[rounded].append(abs(scores[0] - scores[1]))
    assert max(spread[False]) < 1e-9, max(spread[False])  # exact angles: the same score at both positions
    assert min(spread[True]) > 10 * 1e-2, min(spread[True])  # rounded: every draw differs, ten times the threshold


def test_norm_rows_name_their_learned_weight_and_bias():
    """The rows "LayerNorm": "normalises a vector by subtracting its mean and dividing by its spread, then multiplies
    each coordinate by a learned weight and adds a learned bias", and "RMSNorm": "normalises a vector by dividing it by
    its root mean square, then multiplies each coordinate by a learned weight": PyTorch's LayerNorm and transformers'
    Llama RMSNorm hold one trainable weight per coordinate (and LayerNorm a bias per coordinate, RMSNorm none), and
    their output is that weight times the normalised vector, plus the bias."""
    assert row("LayerNorm").startswith(
        "| LayerNorm | 层归一化 | normalises a vector by subtracting its mean and dividing by its spread, then"
        " multiplies each coordinate by a learned weight and adds a learned bias |"
    )
    assert row("RMSNorm").startswith(
        "| RMSNorm | 均方根归一化 | normalises a vector by dividing it by its root mean square, then multiplies each"
        " coordinate by a learned weight |"
    )
    from transformers.models.llama.modeling_llama import LlamaRMSNorm

    d = 8
    g = torch.Generator().manual_seed(0)
    x = torch.randn(3, d, generator=g, dtype=torch.float64)
    layer, rms = torch.nn.LayerNorm(d, dtype=torch.float64), LlamaRMSNorm(d).double()
    params = {name: tuple(p.shape) for name, p in layer.named_parameters()}
    assert params == {"weight": (d,), "bias": (d,)}, params
    assert {name: tuple(p.shape) for name, p in rms.named_parameters()} == {"weight": (d,)}
    with torch.no_grad():
        for module in (layer, rms):
            for p in module.parameters():
                p.copy_(torch.randn(d, generator=g, dtype=torch.float64))
        centred = x - x.mean(-1, keepdim=True)
        spread = (centred.pow(2).mean(-1, keepdim=True) + layer.eps).sqrt()
        assert torch.allclose(layer(x), centred / spread * layer.weight + layer.bias, atol=1e-10)
        root = (x.pow(2).mean(-1, keepdim=True) + rms.variance_epsilon).sqrt()
        assert torch.allclose(rms(x), x / root * rms.weight, atol=1e-10)


def test_float32_angles_row_quotes_chapter_4s_rule():
    """The row "float32 angles": "RoPE's angles $m\\theta_i$ rounded to float32; the bound on the rounding error grows
    with the position $m$", its definition alone (r177); the block "Chapter 4's rule for float32 angles": "Since the
    bound on the error of *float32 angles* grows with the position, chapter 4's rule is: form the angles in float64 and
    keep the cos and sin tables and the rotation in float32". The rule is chapter 4's own sentence;
    "the bound ... grows with the position": half a unit in
    the last place of $m\\theta_i$ never falls as $m$ grows and bounds every error, while the error itself need not grow
    (pair 0's angle $m \\cdot 1$ is exact at every position of a long input); the largest float32 rounding error of the
    angles $m\\theta_i$ over a head's pairs, against their float64 values, at positions 10^2 to 10^6 (each a hundred
    positions wide) rises from each position to the next, and stays under chapter 4's bound $m \\cdot 2^{-24}$; rounding
    the frequencies alone (float32 $\\theta_i$, float64 product) leaves the relative score exact, which is why the row
    speaks of the angles."""
    assert row("float32 angles") == (
        "| float32 angles | | RoPE's angles $m\\theta_i$ rounded to float32; the bound on the rounding error grows with"
        " the position $m$ | {doc}`4 <../notebooks/04_rope>` |"
    )
    (rule,) = re.findall(
        r"^Since the bound on the error of \*float32 angles\* grows with the position, chapter 4's rule is: (form the"
        r" angles in float64 and keep the cos and sin tables and the rotation in float32)\. Transformers' Llama code"
        # fix pass 243 (read r242 #5, an omission: transformers departs from the rule): checked below in its source
        r" forms the angles in float32 and rounds cos and sin to the activations' dtype, so in a bfloat16 model its"
        r" rotation runs in bfloat16\.$",
        block("Chapter 4's rule for float32 angles"),
    )
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    forward = inspect.getsource(LlamaRotaryEmbedding.forward)
    assert "freqs = position_ids[..., None].float() * self.inv_freq.to(device=x.device, dtype=torch.float)" in forward
    assert "return cos.to(dtype=x.dtype), sin.to(dtype=x.dtype)" in forward, forward
    q = torch.randn(1, 2, 3, 8, dtype=torch.bfloat16)  # bfloat16 activations and tables: the rotation's dtype
    rotary = LlamaRotaryEmbedding(transformers.LlamaConfig(hidden_size=16, num_attention_heads=2))
    cos, sin = rotary(q, torch.arange(3)[None])
    assert cos.dtype == torch.bfloat16 and apply_rotary_pos_emb(q, q, cos, sin)[0].dtype == torch.bfloat16
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    maths = raw[raw.index("(glossary-maths)=") : raw.index("(glossary-longer)=")]
    assert "<details><summary>Chapter 4's rule for float32 angles</summary>" in maths  # the row's section
    c4 = chapter("04_rope")
    assert f"**Hence the rule: {rule}.**" in c4
    assert "Float32 rounds an angle of at most $m$ radians by up to $m \\cdot 2^{-24}$" in c4
    theta = posenc.rope_inv_freq(128, 10_000.0)  # float32 frequencies, as transformers forms them
    check_half_ulp_bound(theta.double(), torch.float32, 24)
    pair0 = torch.arange(0, 2**17, dtype=torch.float64)  # theta_0 = 1: pair 0's angles are exact in float32
    assert theta[0] == 1.0 and torch.equal((pair0.float() * theta[0]).double(), pair0)
    worst = []
    for start in (10**2, 10**3, 10**4, 10**5, 10**6):
        m = torch.arange(start, start + 100)
        exact = m.double()[:, None] * theta.double()
        rounded = (m.float()[:, None] * theta.float()).double()
        error = float((rounded - exact).abs().max())
        assert error <= (start + 100) * 2.0**-24, (start, error)  # chapter 4's bound
        worst.append(error)
    assert all(a < b for a, b in zip(worst, worst[1:], strict=False)), worst  # grows with the position
    # the float32 frequencies themselves do not break the relative score: with float64 products, R_m^T R_n = R_{n-m}
    m, n = 100_003, 100_010
    angle = lambda p: p * theta.double()  # noqa: E731
    assert torch.allclose(angle(n) - angle(m), angle(n - m), rtol=0, atol=1e-9)
    assert "{ref}`float32 angles <glossary-maths>`" in page()


# ---- the slow pair's new angles scoped to a decoder -----------------------------------------------------------------


def test_slow_pair_meets_new_angles_in_a_decoder_not_always_in_an_encoder():
    """The slow pair row, "a pair that turns less than once over training's largest distance, $L - 1$", and the
    main line's :data:`SLOW_PAIR_CLAUSE`, "A *slow pair* turns less than once over training's distances, 0 to $L -
    1$. In a decoder every key sits at or behind its query, so training's distances run only one way, from 0 to $L - 1$,
    and a slow
    pair's angle covers only one arc of its circle. A
    long enough input carries the pair's angle past the end of that arc: a new angle" (read r179: "longer than $L$"
    failed for a pair that turns once in $L$ but not in $L - 1$, whose angles wrap back into the arc until about $2L$;
    read r186: the decoder's reason, once the worked example's, is the main line's). In a
    decoder the offsets of training, key minus query under a causal mask, are 0 to -(L - 1), all on one side of zero:
    each slow pair (the fast pair row's inequality fails) sees an arc shorter than its circle, and some
    distance from L to 2L - 1 puts it outside that arc. Without a causal mask the offsets run from -(L - 1) to L - 1:
    a slow pair that turns at least half a turn over L - 1 positions sees its whole circle, and Llama 3.1's head has
    such pairs, so "in a decoder" is needed (as the intro's block says)."""
    assert SLOW_ROW_MEANING in row("slow pair | 慢速对")
    assert SLOW_PAIR_CLAUSE in page() and ONE_SIDED_ARC in SLOW_PAIR_CLAUSE
    # "since every key sits at or behind its query": the causal mask's offsets, key minus query, are never positive,
    # and they fill 0 to -(L - 1), one side of zero
    mask = torch.ones(64, 64).tril().bool()  # [query, key]: keys at or behind the query
    offsets = (torch.arange(64)[None, :] - torch.arange(64)[:, None])[mask]
    assert int(offsets.max()) == 0 and set(offsets.tolist()) == set(range(-63, 1))
    (inequality,) = re.findall(FAST_ROW_INEQUALITY + r" Its trained angles then go", row("fast pair"))
    llama_d, llama_base, llama_L, _ = llama31_head()
    two_way = 0
    for d, base, L in ((llama_d, llama_base, llama_L), (128, 10_000.0, 4096), (16, 10_000.0, 64)):
        theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
        slow = [float(th) for th in theta if not evaluate(inequality, L=L, theta=float(th))]
        assert slow, (d, base, L)
        longer = torch.arange(L, 2 * L, dtype=torch.float64)
        for th in slow:
            arc = (L - 1) * th  # decoder: trained angles 0 to -(L - 1) th, one arc, shorter than the circle
            assert arc < 2 * math.pi
            assert bool((torch.remainder(longer * th, 2 * math.pi) > arc + 1e-9).any()), th  # a new angle past L
            if arc >= math.pi:  # encoder: offsets -(L - 1) to L - 1 cover the circle, every angle within a step
                two_way += 1
                # each distance's angle against its nearest trained angle on the circle (sorted, wrapped at both
                # ends), in O(L log L) rather than an L x 2L table
                trained = torch.arange(-(L - 1), L, dtype=torch.float64) * th
                ring = torch.sort(torch.remainder(trained, 2 * math.pi)).values
                ring = torch.cat([ring[-1:] - 2 * math.pi, ring, ring[:1] + 2 * math.pi])
                angle = torch.remainder(longer * th, 2 * math.pi)
                at = torch.searchsorted(ring, angle).clamp(1, len(ring) - 1)
                nearest = torch.minimum(angle - ring[at - 1], ring[at] - angle)
                assert float(nearest.max()) <= th + 1e-9, th
    assert two_way > 0  # some slow pair meets no new angle in an encoder: the scope is needed


def test_filler_row_two_equally_likely_next_symbols():
    """The filler row: "a random second-order Markov chain over sixteen symbols, in which exactly two symbols can follow
    any two, each with probability one half" (read r181: "two next symbols are equally likely" could be read as all
    next symbols). Chapter 8's corpus (its saved run's config): 16 symbols, branching 2, no copied spans; each of the
    256 contexts allows two distinct next symbols, no other symbol follows, and in a long sample each is drawn about
    half the time."""
    from posenc.experiments import experiment_config

    assert "in which exactly two symbols can follow any two, each with probability one half |" in row(
        "filler | 填充文本"
    )
    corpus = PasskeyCorpus(**experiment_config()["corpus"])
    filler = corpus.filler_corpus
    assert (filler.vocab_size, filler.branching, filler.copy_prob) == (16, 2, 0.0)
    nxt = filler.next_tokens  # [V, V, 2]
    assert bool((nxt[..., 0] != nxt[..., 1]).all())  # two distinct symbols per context
    tokens = filler.sample(64, 512, generator=torch.Generator().manual_seed(0))
    ctx = tokens[:, :-2] * 16 + tokens[:, 1:-1]  # the two before, as one index
    follows = tokens[:, 2:]
    allowed = nxt.view(256, 2)[ctx]  # [b, n - 2, 2]
    first = follows == allowed[..., 0]
    assert bool((first | (follows == allowed[..., 1])).all())  # only the two allowed symbols follow
    assert abs(float(first.double().mean()) - 0.5) < 0.01  # each about half the time (32 640 draws: sd 0.003)


def test_abacus_and_position_coupling_rows_restate_chapter_11():
    """The Encodings rows "Abacus embeddings" and "position coupling" (read r169: chapter 11 names both, the glossary
    had neither) restate chapter 11's sentences: Abacus numbers "each digit from the start of its number"; position
    coupling gives "the digits of the same significance the same position"; both set "by hand from the task's
    structure". The Abacus row adds the paper's setup (read r188): "the numbers are written least significant digit
    first", as in McLeish et al.'s code, whose `Abacus` module says "Integers must be reversed for this to work
    correctly" (mcleish7/arithmetic, abacus.py; no offline source, a prose sync). Why it matters, derived: numbering
    each digit from the start of its number, as that module does (1, 2, ... along each run of digits), gives the digits
    of the same significance in two numbers of different lengths the same position when they are written least
    significant digit first, and different ones when written the usual way."""
    c11 = " ".join(chapter("11_learned_position").split())
    assert "set them by hand from the task's structure." in c11
    assert "number each digit from the start of its number." in c11
    assert "gives the digits of the same significance the same position." in c11
    # fix pass 280 (read r276b #5, unclear: a 49-word cell): the row is one sentence; the setup and the training's
    # random offset moved word for word to the block "Abacus embeddings: the setup and the training"
    assert row("Abacus embeddings").startswith(
        "| Abacus embeddings | | positions for arithmetic that number each digit from the start of its number"
        " (McLeish et al. 2024) |"
    )
    assert block("Abacus embeddings: the setup and the training") == (
        "*Abacus embeddings*' positions are set from the task's structure; the numbers are written least significant"
        " digit first. Training shifts these positions by a random offset, so that longer numbers meet positions"
        " already trained."
    )
    # read r203: the paper's random offset in training (McLeish et al. 2024, section 3, a prose sync); chapter 11 does
    # not give it, so the row cites the paper. Derived: trained on numbers of up to n digits, positions 1 to n alone
    # are trained; a random offset of 1 to K shifts them, so positions up to n + K are trained and a longer number's
    # positions fall among them
    assert "random offset" not in c11 and "mcleish2024abacus" in (ROOT / "references.bib").read_text(encoding="utf-8")
    n_train, k_max = 20, 100
    plain = {pos for width in range(1, n_train + 1) for pos in range(1, width + 1)}
    shifted = {pos + k for width in range(1, n_train + 1) for k in range(1, k_max + 1) for pos in range(1, width + 1)}
    longer = set(range(2, 5 * n_train + 1))  # a 100-digit number's positions, shifted by the smallest offset, 1
    assert not longer <= plain and longer <= shifted

    def abacus(text: str) -> list[int]:
        """each digit's position: 1, 2, ... from the first digit of its run, 0 for other tokens (abacus.py's helper)"""
        out, run = [], 0
        for ch in text:
            run = run + 1 if ch.isdigit() else 0
            out.append(run)
        return out

    def by_significance(text: str, lsd_first: bool) -> dict[tuple[int, int], int]:
        """(number, significance) -> position, significance 0 for the units digit"""
        found, number = {}, -1
        for match in re.finditer(r"\d+", text):
            number += 1
            width = match.end() - match.start()
            for k, at in enumerate(range(match.start(), match.end())):
                found[(number, k if lsd_first else width - 1 - k)] = abacus(text)[at]
        return found

    a, b = 4567, 89
    for lsd_first in (True, False):
        text = f"{str(a)[::-1]}+{str(b)[::-1]}=" if lsd_first else f"{a}+{b}="
        pos = by_significance(text, lsd_first)
        shared = [pos[(0, k)] == pos[(1, k)] for k in range(len(str(b)))]
        assert all(shared) if lsd_first else not any(shared), (text, pos)
    assert "that give the digits of the same significance in different numbers the same position" in row(
        "position coupling"
    )


def test_sliding_window_evaluation_row_says_chapter_8_leaves_it_unnamed():
    """The row "sliding-window evaluation" links chapter 8, which runs the evaluation (scoring each token "with only
    the $L$ characters just before it") without the name: the block under the row's table says so (read r169; the row
    holds the definition alone, r177), and that it is not sliding-window attention, whose row follows."""
    assert row("sliding-window evaluation | 滑动窗口评估").endswith(
        " a window that slides one token at a time | {doc}`8 <../notebooks/08_extrapolation>` |"
    )
    assert (
        "- Chapter 8 runs a *sliding-window evaluation* without using this name. It is not *sliding-window attention*,"
        " which limits the keys an attention layer sees." in block(MORE_LONGER)
    )
    assert "causal attention restricted to the $w$ most recent keys" in row("sliding-window attention (SWA)")
    c8 = " ".join(chapter("08_extrapolation").split())
    assert "sliding-window evaluation" not in c8.lower() and "characters just before it" in c8


def test_context_parallelism_row_links_both_halves():
    """The row "context parallelism": "each chunk's position term, ALiBi's bias or RoPE's angles, needs its tokens'
    global positions" links chapter 6 (ALiBi's half) and chapter 10 (RoPE's half, read r172)."""
    assert "{doc}`6 <../notebooks/06_alibi>`, {doc}`10 <../notebooks/10_rope_today>` |" in row("context parallelism")
    assert "each shard must number its tokens from its global offset" in chapter("10_rope_today")
    # fix pass 280 (read r276b #8, omission: the row did not name ring attention, the form a reader meets in training
    # code): "one per device, as ring attention does"; torch's own context parallelism passes the key and value
    # shards between devices in a ring (its `_RingRotater` classes)
    assert "| splitting one long sequence into chunks, one per device, as ring attention does;" in row(
        "context parallelism"
    )
    from torch.distributed.tensor.experimental._context_parallel import _attention as cp_attention

    assert issubclass(cp_attention._AllToAllRotater, cp_attention._RingRotater)
    assert "ring-flash-attention" in inspect.getsource(cp_attention)


def test_roformer_block_says_which_bullets_define_and_which_find():
    """The block "RoFormer's bound, and what chapter 5 finds about the decay" opens (fix pass 231, read r230 #3: nine
    bullets, and a reader could not tell which was the result): "The first six bullets define RoFormer's bound; the
    last three give what chapter 5 finds." The block has nine bullets; the sixth states the bound, and each of the
    last three is about chapter 5's scores, not the bound."""
    text = block("RoFormer's bound, and what chapter 5 finds about the decay")
    # fix pass 273 (read r270a #1, unclear: one bullet held four results): the last six, one result each
    lead = "The first six bullets define RoFormer's bound; the last six give what chapter 5 finds."
    assert text.startswith(lead + " - "), text[:200]
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    raw = raw[raw.index("<summary>RoFormer's bound, and what chapter 5 finds about the decay</summary>") :]
    raw = raw[: raw.index("</details>")]
    bullets = [" ".join(b.split()) for b in re.split(r"\n- ", raw)[1:]]  # each bullet opens a line with "- "
    assert len(bullets) == 12, len(bullets)
    assert bullets[5].startswith("RoFormer bounds the modulus of the complex sum")
    assert all("bound" not in b for b in bullets[6:]), bullets[6:]
    assert bullets[6].startswith("In chapter 5's 128-wide heads") and all("score" in b for b in bullets[7:]), bullets
    assert all(len(b.split()) < 100 for b in bullets[6:]), bullets[6:]  # one result a bullet, none of 170 words


def test_scales_compound_on_the_softmax_scale():
    """The scales section's opening (fix pass 235, read r234 #2): "The multipliers compound: the softmax scale applies
    to every logit, and the others, where a model has them, multiply on top of it." In transformers 5.24's Llama
    code the attention factor rides on cos and sin (so on q and k) and the module's `scaling`, the softmax scale,
    multiplies q . k after that, in the eager path; Llama 4's tau multiplies the query states before the same
    product. So a YaRN Llama's logit is q . k times the softmax scale times the factor's square."""
    from transformers.models.llama import modeling_llama
    from transformers.models.llama4 import modeling_llama4

    eager = " ".join(inspect.getsource(modeling_llama.eager_attention_forward).split())
    assert "attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling" in eager
    assert "self.scaling = self.head_dim**-0.5" in inspect.getsource(modeling_llama.LlamaAttention.__init__)
    assert "cos = emb.cos() * self.attention_scaling" in inspect.getsource(modeling_llama.LlamaRotaryEmbedding.forward)
    llama4 = " ".join(inspect.getsource(modeling_llama4.Llama4TextAttention.forward).split())
    assert "query_states = (query_states * attn_scales).to(query_states.dtype)" in llama4
    assert (
        "The multipliers compound: the *softmax scale*, usually $1/\\sqrt d$, applies to every logit, and the others,"
        " where a model has them, multiply on top of it." in page()
    )


def test_head_dimension_row_warns_that_head_dim_can_differ():
    """The head dimension row (fix pass 258b, read r258b #7, an omission): "a configuration's `head_dim` where it has
    one, which can differ from `hidden_size` over the number of heads, as in Gemma 3". Checked on transformers'
    Gemma3TextConfig defaults: head_dim 256 against 2304 / 8 = 288."""
    assert "which can differ from `hidden_size` over the number of heads, as in Gemma 3" in row("head dimension")
    pytest.importorskip("transformers", minversion="5.24")  # the book's version
    from transformers import Gemma3TextConfig

    gemma = Gemma3TextConfig()
    assert gemma.head_dim != gemma.hidden_size // gemma.num_attention_heads, (gemma.head_dim, gemma.hidden_size)


def test_letters_rows_for_factor_dynamic_interleaved_p_and_n():
    """Fix pass 265 (read r264b #3, omission: "factor", "dynamic" and "interleaved" each name several ideas; read
    r264 #3, unclear: the scales rows write a position $p$ and a count $N$ that the Letters table did not list): five
    rows of the Letters table, each sense checked where the row says it is used, on this page, in a chapter or in
    transformers."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    outside = re.sub(r"\s+", " ", raw[: raw.index("(glossary-letters)=")] + raw[raw.index("(glossary-papers)=") :])
    # factor: the extension factor alone; five compounds on this page; chapter 5's distance factor and chapter 8's
    # dynamic factor elsewhere
    # fix pass 273 (read r270a #3, unclear: one cell held about eight meanings): the row keeps the word alone; the
    # compounds, five on this page and two in chapters, are a list under the table, one meaning an item
    assert letters("factor") == (
        "| factor | alone, the *extension factor* $s$, a configuration's `factor`; in compounds, five other meanings,"
        " listed under this table | two other meanings, in chapters 5 and 8, listed under this table |"
    )
    letters_block = block("Each letter and word, with its meaning here and elsewhere")
    # fix pass 288 (read r283b #4, unclear: "five other meanings" in the row, seven items under "In compounds"): the
    # list's lead names the seven and how they split, counted below
    lead = 'In compounds, "factor" has these seven meanings, one each: five on this page, then two in chapters 5 and 8.'
    compounds = letters_block[letters_block.index(lead + " - ") :]
    compounds = compounds[: compounds.index(" The design notes list")]
    items = compounds.split(" - ")[1:]
    assert items == [
        "the *effective factor*: what a rule divides its slowest pair's frequency by;",
        "the *attention factor* $a$: YaRN's and LongRoPE's number on cos and sin;",
        "the *content factor*: the factor of RoFormer's bound that the query and key set;",
        "`partial_rotary_factor`: the share of a head that RoPE turns;",
        "`llama3`'s `low_freq_factor` and `high_freq_factor`: its bounds in *turns in $L$*;",
        "chapter 5's distance factor: the bound's other factor, $d/2$ times the *mean reach*;",
        "chapter 8's dynamic factor: an input's *stretch*.",
    ], items
    # "five other meanings" on this page, "two other meanings, in chapters 5 and 8": the items, counted
    on_page = [i for i in items if not i.startswith("chapter")]
    in_chapters = [re.match(r"chapter (\d+)'s", i).group(1) for i in items if i.startswith("chapter")]
    assert ["five"] == [w for w in ("four", "five", "six") if f"in compounds, {w} other meanings" in letters("factor")]
    assert len(on_page) == 5 and in_chapters == ["5", "8"], (on_page, in_chapters)
    assert "two other meanings, in chapters 5 and 8" in letters("factor")
    # fix pass 288 (read r283b #4): the lead's "seven", "five on this page" and "two in chapters 5 and 8", counted
    assert len(items) == {"seven": 7}["seven"] and len(on_page) == {"five": 5}["five"], items
    assert items[-2:] == [i for i in items if i.startswith("chapter")]  # "then two in chapters 5 and 8"
    assert all(i.count(":") == 1 for i in items), items  # one meaning an item
    assert cells("extension factor")[2].startswith("$s$, a configuration's `factor`")
    assert cells("effective factor")[2].startswith("the number by which a rule divides its slowest pair's frequency")
    assert cells("attention factor")[2].startswith(
        "the number $a$ by which YaRN and LongRoPE multiply RoPE's cos and sin"
    )
    assert "the factor of RoFormer's decay bound that the query and key set" in row("content factor")  # pass 272
    assert "A config sets a *partial rotary* head's share with `partial_rotary_factor`." in models_block("## Encodings")
    assert "with bounds `high_freq_factor` and `low_freq_factor` in *turns in $L$*" in row(
        "Llama 3.1 scaling (`llama3`)"
    )
    c5 = chapter("05_decay")
    assert "a product of two factors, one set by the content and one by the distance. The distance factor falls" in c5
    assert "the sum is $d/2$ times the mean reach" in c5
    c8_code = "\n".join(
        "".join(cell["source"])
        for cell in json.loads((ROOT / "notebooks" / "08_extrapolation.ipynb").read_text(encoding="utf-8"))["cells"]
        if cell["cell_type"] == "code"
    )
    assert "dynamic factor (n / {L}) against the factor fixed at 8" in c8_code  # n / L past L: the stretch
    # dynamic: a length-dependent rule on this page, its four rows; the config's rope type `dynamic` is transformers'
    # dynamic NTK, and HunYuan's `dynamic` with `alpha` a static rule, as the block says
    assert letters("dynamic") == (
        "| dynamic | of a scaling, set from each input's length, as in *dynamic (scaling)*, *dynamic NTK*, *dynamic PI*"
        " and *dynamic YaRN* | in configurations, the rope type `dynamic`, which names *dynamic NTK*; HunYuan's configs"
        " say `dynamic` but set `alpha`, which makes the rule *static* |"
    )
    assert "a scaling whose divisors are set from each input's length" in row("dynamic (scaling)")
    for term in ("dynamic NTK (`dynamic`)", "dynamic PI", "dynamic YaRN"):
        assert row(term).count("{doc}") >= 1, term
    assert ROPE_INIT_FUNCTIONS["dynamic"].__name__ == "_compute_dynamic_ntk_parameters"
    assert (
        "HunYuan's configs say `dynamic` but set `alpha`, which fixes the base at $b\\,\\alpha^{d/(d-2)}$ for every"
        " input: a *static* rule." in models_block("### Terms for longer inputs")
    )
    # interleaved: the pair layout here; interleaved M-RoPE's dealing and Llama 4's layers elsewhere
    assert letters("interleaved") == (
        "| interleaved | the *interleaved layout*: RoPE pairs neighbours, $2i$ and $2i + 1$ | in *interleaved M-RoPE*,"
        " pairs dealt out to the three axes in turn; in chapter 7 and the *iRoPE* row, Llama 4's NoPE layers placed"
        " among its RoPE layers |"
    )
    assert "RoPE pairs neighbours, $2i$ and $2i + 1$" in row("interleaved layout")
    assert "pairs dealt out in turn to the three axes" in row("interleaved M-RoPE")
    assert "Llama 4's interleaving of layers: three layers in four use RoPE" in row("iRoPE")
    assert (
        "Recent large models mix NoPE layers with RoPE layers. Llama 4 interleaves attention layers without position"
        " encoding" in chapter("07_beyond")
    )
    # p: any position in two core rows, the query's in the logn row (the claims page's letter); chapter 7's and
    # Reading model code's Llama 4 position, chapter 10's first image id, chapter 11's KERPLE power
    assert letters("$p$") == (
        "| $p$ | a position: any position in the rows *linear relation* and *sinusoidal encoding*; the query's in the"
        " *logn attention* row, as on the claims page | the query's position in Llama 4's $\\tau$ in chapter 7 and"
        " Reading model code; the first id of an image's tokens under M-RoPE in chapter 10; KERPLE's power in chapter"
        " 11 |"
    )
    assert "the encoding of every position $p$" in row("linear relation") and "of position $p$ are" in row(
        "sinusoidal encoding"
    )
    assert "on the query at position $p \\ge L$" in row("logn attention (`use_logn_attn`)")
    claims = re.sub(r"\s+", " ", (ROOT / "book" / "claims.md").read_text(encoding="utf-8"))
    assert "multiplies the query at position $p \\ge L$" in claims
    assert "\\lfloor (p+1)/f \\rfloor\\big)$ at position $p$" in chapter("07_beyond")
    reading = re.sub(r"\s+", " ", (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8"))
    assert "\\tau = 1 + a \\ln(1 + \\lfloor (p + 1)/f \\rfloor)" in reading
    assert "Transformers counts the position $p$" in reading
    assert "tokens starts at id $p$" in chapter("10_rope_today")
    assert "CPD for $0 < p \\le 2$" in chapter("11_learned_position")
    # N: the count in the Scalable-Softmax row; chapter 10's turns, chapter 11's normal distribution
    assert letters("$N$") == (
        "| $N$ | the number of tokens a query attends, in the *Scalable-Softmax* row | how many times a pair turns"
        " within $L$ in chapter 10; the normal distribution $N(0, 1)$ in chapter 11 |"
    )
    assert "with $N$ the number of tokens attended" in row("Scalable-Softmax")
    assert "A pair that turns $N$ times within $L$ has wavelength $L/N$." in chapter("10_rope_today")
    assert "drawn $N(0, 1)$ per bucket" in chapter("11_learned_position")
    # each compound, field or row the five rows name is this page's, outside the Letters section: a row of its own,
    # or a field in code font
    for term in (
        "effective factor",
        "attention factor",
        "content factor",
        "dynamic PI",
        "interleaved M-RoPE",
        "iRoPE",
        "logn attention (`use_logn_attn`)",
        "Scalable-Softmax",
    ):
        assert row(term), term
    for field in ("`partial_rotary_factor`", "`low_freq_factor`", "`high_freq_factor`", "`alpha`"):
        assert field in outside, field


def test_links_to_reading_model_code_say_whose_section_they_are():
    """Fix pass 274 (read r271a #1, unclear: "see {ref}`Static and dynamic scaling rules <glossary-dynamic>`" read as a
    section of this page, though its label, like `glossary-fields` and `glossary-temperature`, is defined in
    book/reading_code.md): every {ref} on this page to a label that Reading model code defines says whose section it
    is, "Reading model code" in its link text or earlier in the same sentence, table cell or bullet. A new bare link
    fails. The labels are read from Reading model code itself, and none of them is also defined here."""
    reading = (ROOT / "book" / "reading_code.md").read_text(encoding="utf-8")
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    theirs = set(re.findall(r"^\(([\w-]+)\)=$", reading, flags=re.M))
    ours = set(re.findall(r"^\(([\w-]+)\)=$", raw, flags=re.M))
    assert {"glossary-dynamic", "glossary-fields", "glossary-temperature"} <= theirs and not theirs & ours, theirs
    links = [m for m in re.finditer(r"\{ref\}`([^`<]*)<([\w-]+)>`", raw) if m[2] in theirs]
    assert len(links) >= 8, [m[0] for m in links]  # the Index's, the rows', the notes' and the blocks' links
    bare = []
    for m in links:
        before = raw[: m.start()]
        # the sentence, cell or bullet the link sits in starts after the last sentence end, cell border, bullet or
        # blank line before it
        starts = [before.rfind(mark) + len(mark) for mark in (". ", ".\n", "| ", "\n- ", "\n\n")]
        context = " ".join(before[max(starts) :].split())
        if "Reading model code" not in m[1] and not context.endswith("Reading model code's"):
            bare.append((context[-60:], m[0]))
    assert not bare, bare
    # the three targets' sections are where the link texts say: Reading model code's headings under the labels
    for label, heading in (
        ("glossary-dynamic", "Static and dynamic scaling rules"),
        ("glossary-temperature", "Temperature rules"),
        ("glossary-fields", "Configuration fields and code names"),
    ):
        assert f"({label})=\n## {heading}\n" in reading, label


def test_absolute_position_encoding_row_follows_chapter_2():
    """Fix pass 274 (read r271a #5, overstated: "a vector for each position, added to the token's embedding" read as
    the class's definition, though chapter 2 defines it by the vector alone and calls adding it the simplest way): the
    row says "usually added". Chapter 2's markdown: the simplest way adds a position vector to the embedding, and the
    definition, "Each position gets its own vector, whatever the other tokens are", has no adding in it."""
    assert row("absolute position encoding").startswith(
        "| absolute position encoding | 绝对位置编码 | a vector for each position, usually added to the token's"
        " embedding | {doc}`2 <../notebooks/02_absolute>` |"
    )
    c2 = chapter("02_absolute")
    assert "The simplest way adds a position vector to the embedding before the first layer" in c2
    (definition,) = re.findall(r"([^.]*): an \*\*absolute\*\* position encoding", c2)
    assert definition.strip() == "Each position gets its own vector, whatever the other tokens are", definition
    assert "add" not in definition


def test_llama_4_interleaved_and_gemma_3_rope_parameters_per_layer_type():
    """Fix pass 279 (read r275b #1 and #7, omission). The Encodings block "In models and code": "Transformers' Llama 4
    code uses the *interleaved layout*, unlike its Llama 3 code: it reads neighbouring coordinates as one complex
    number, with `torch.view_as_complex`." Read from transformers' modeling sources: Llama 4 reshapes the last axis into
    neighbouring pairs and calls `torch.view_as_complex`; Llama's `rotate_half` splits the halves; and a rotation by the
    Llama 4 function turns coordinates 2i and 2i + 1 together. The Core block's "Its `rope_parameters` holds one entry
    per layer type, `sliding_attention` and `full_attention`, each with its own `rope_type` and `rope_theta`": Gemma 3's
    text config, with the bases the sentence before it gives."""
    from transformers.models.llama import modeling_llama
    from transformers.models.llama4 import modeling_llama4

    said = (
        "- Transformers' Llama 4 code uses the *interleaved layout*, unlike its Llama 3 code: it reads neighbouring"
        " coordinates as one complex number, with `torch.view_as_complex`."
    )
    assert said in " ".join(page().split())
    llama4 = " ".join(inspect.getsource(modeling_llama4.apply_rotary_emb).split())
    assert "torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))" in llama4
    half = " ".join(inspect.getsource(modeling_llama.rotate_half).split())
    assert "x1 = x[..., : x.shape[-1] // 2]" in half and "x2 = x[..., x.shape[-1] // 2 :]" in half
    # a quarter turn of one pair's angle only: Llama 4's function moves coordinates 0 and 1 together, nothing else
    x = torch.zeros(1, 1, 1, 8)
    x[..., 0] = 1.0
    freqs = torch.polar(torch.ones(1, 1, 4), torch.tensor([[[math.pi / 2, 0.0, 0.0, 0.0]]]))  # batch, position, pair
    turned, _ = modeling_llama4.apply_rotary_emb(x, x, freqs)
    assert torch.allclose(turned.flatten(), torch.tensor([0.0, 1.0, 0, 0, 0, 0, 0, 0]), atol=1e-6), turned
    # Gemma 3: one rope_parameters entry per layer type, each with its own type and base
    gemma = " ".join(page().split())
    assert (
        "Its `rope_parameters` holds one entry per layer type, `sliding_attention` and `full_attention`, each with its"
        " own `rope_type` and `rope_theta`." in gemma
    )
    cfg = transformers.Gemma3TextConfig()
    assert set(cfg.rope_parameters) == {"sliding_attention", "full_attention"}, cfg.rope_parameters
    assert set(cfg.layer_types) == {"sliding_attention", "full_attention"}
    for kind, theta in (("sliding_attention", 10_000.0), ("full_attention", 1_000_000.0)):
        assert {"rope_type", "rope_theta"} <= set(cfg.rope_parameters[kind]), (kind, cfg.rope_parameters)
        assert float(cfg.rope_parameters[kind]["rope_theta"]) == theta, (kind, cfg.rope_parameters)
    assert "Gemma 3's base is 10 000 in its sliding-window layers and 1 000 000 in" in gemma


# ---- fix pass 281 ----------------------------------------------------------------------------------------------------


def test_yarn_divides_every_pair_where_its_kept_end_passes_the_clamp():
    """fix pass 281 (read r277b #6, unclear: the bullet said the code divides every pair where L >= 2 pi b^2
    beta_fast, not why, though the betas row would keep them all): :data:`NEW_PAIR_0`'s "although every pair then
    turns more than `beta_fast` times and the *betas* row would keep them all. The cause is the clamp `min(high, dim -
    1)`: it bounds the ramp's divided end by the rotated width `dim`, not by the last pair, and the kept end has no
    upper bound. Here the kept end passes the divided one, so the ramp runs backwards." Transformers' own nested
    find_correction_range and linear_ramp_factor, rebuilt from _compute_yarn_parameters's code objects: `dim` is the
    rotated width and the ramp runs over its `dim // 2` pairs; past the threshold every pair turns more than
    `beta_fast` times, the kept end (`low`, beta_fast's) is at least `dim`, past the divided end clamped at `dim - 1`,
    and the ramp's share divided by s is 1 for every pair; the same range without the clamp would keep every pair."""
    import transformers.modeling_rope_utils as rope_utils
    from transformers.modeling_rope_utils import _compute_yarn_parameters

    assert NEW_PAIR_0 in " ".join(models_block("### Terms for longer inputs").split())
    source = inspect.getsource(_compute_yarn_parameters)
    assert "dim = int(head_dim * partial_rotary_factor)" in source  # `dim`: the rotated width
    assert "linear_ramp_factor(low, high, dim // 2)" in source  # the ramp runs over dim // 2 pairs, the last dim/2 - 1
    assert "return max(low, 0), min(high, dim - 1)" in source  # the divided end clamped at dim - 1; the kept end not
    assert "find_correction_range(beta_fast, beta_slow," in source  # low from beta_fast (kept), high from beta_slow
    nested = {c.co_name: c for c in _compute_yarn_parameters.__code__.co_consts if inspect.iscode(c)}
    correction_dim = FunctionType(nested["find_correction_dim"], vars(rope_utils))
    correction_range = FunctionType(
        nested["find_correction_range"], vars(rope_utils), closure=(CellType(correction_dim),)
    )
    ramp_share = FunctionType(nested["linear_ramp_factor"], vars(rope_utils))  # 1: divided by s; 0: kept
    checked = 0
    for dim, base, fast, slow in ((16, 2.0, 32.0, 1.0), (8, 3.0, 2.0, 1.0), (64, 2.0, 16.0, 2.0)):
        threshold = 2 * math.pi * base**2 * fast
        theta = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
        for length in (int(threshold) + 1, int(2 * threshold)):
            assert bool((length * theta / (2 * math.pi) > fast).all())  # every pair turns more than beta_fast times
            low, high = correction_range(fast, slow, dim, base, length, True)
            assert high == dim - 1 and low >= dim > high, (dim, base, length, low, high)  # the ends cross
            assert ramp_share(low, high, dim // 2).tolist() == [1.0] * (dim // 2)  # every pair divided
            # without the clamp, the divided end stays past the kept one and the ramp keeps every pair
            unclamped = math.ceil(correction_dim(slow, dim, base, length))
            assert unclamped > low and ramp_share(low, unclamped, dim // 2).tolist() == [0.0] * (dim // 2)
            checked += 1
    assert checked == 6


def test_long_term_decay_rows_verdict_is_the_blocks():
    """fix pass 281 (read r277b #5, unclear: the row gave RoFormer's claim but not chapter 5's verdict): the row's
    "Chapter 5 finds it holds for a *matching key* only on average over random *isotropic* queries and over each
    doubling of the distance, up to about
    half the base, and not for an unrelated key" says what the block "RoFormer's bound, and what chapter 5 finds about
    the decay" says, checked there in test_decay_block_reaches_about_zero_near_half_the_base and
    test_an_isotropic_unrelated_keys_score_has_one_distribution_at_every_distance; recomputed here in short: in a head
    128 wide of base 10 000, the matching key's expected score 2 sum cos(r theta_i) falls doubling by doubling up to
    the one that holds half the base, where it is about zero, while single distances rise somewhere before it."""
    ((holds_for, unrelated, row_width, row_base, share),) = re.findall(
        # fix pass 282 (read r278a #4): the head named, its width and base checked against the block's below
        # fix pass 287 (read r282b #5, unclear: five qualifiers in one sentence): the finding with its head, then the
        # averages, in two short sentences
        r"\| RoFormer's claim that RoPE's scores fall with distance\. Chapter 5 finds it only for a \*(matching key)\*,"
        r" (not an unrelated one), in its head of width (\d+) and base ([\d ]+)\."
        # fix pass 286 (read r281a #4, unclear: the average was also over random queries, said only in the block)
        r" There the score falls on average over random \*isotropic\* queries and over each doubling of the distance,"
        r" up to about (half) the base \|",
        row("long-term decay"),
    )
    decay = block("RoFormer's bound, and what chapter 5 finds about the decay")
    assert "a *matching key*'s score falls to about zero near half the base, on average over each doubling" in decay
    # fix pass 286 (read r281a #4): the row's "random *isotropic* queries" are the block's (its mean is computed over
    # them in test_decay_block_reaches_about_zero_near_half_the_base)
    assert "its mean averages over them and over random *isotropic* queries" in " ".join(decay.split())
    assert f"- In chapter 5's {row_width}-wide heads of base {row_base}, a *matching key*" in decay  # fix pass 282
    assert "- Distance by distance, the score does not fall steadily." in decay
    assert "- An *isotropic* unrelated key's score has the same distribution at every distance." in decay
    assert holds_for == "matching key" and unrelated == "not an unrelated one"
    theta = posenc.rope_inv_freq(128, 10_000.0, dtype=torch.float64)
    half = 10_000.0 * {"half": 0.5}[share]
    holds = int(math.log2(half))  # 4096 <= 5000 < 8192
    means = []
    for g in range(holds + 1):
        r = torch.arange(2**g, 2 ** (g + 1), dtype=torch.float64)
        means.append(float((2 * torch.cos(r[:, None] * theta).sum(1)).mean()))
    assert all(b < a for a, b in zip(means, means[1:])), means  # falls over each doubling, up to half the base
    assert abs(means[holds]) < 0.01 * 128, means[holds]  # about zero there
    r = torch.arange(1, int(half), dtype=torch.float64)
    single = 2 * torch.cos(r[:, None] * theta).sum(1)
    assert bool((single[1:] > single[:-1]).any())  # "only on average": single distances rise somewhere


def test_where_papers_and_code_differ_main_line_example():
    """fix pass 281 (read r277a #5, unclear: every entry was collapsed, so the section's main line gave no example):
    "For one, transformers' `dynamic` reads $L$ from `max_position_embeddings`, not the trained length", the dynamic
    NTK row of the block below, whose source claim is checked in
    test_dynamic_ntk_formula_and_the_field_transformers_reads; here its consequence: with a config whose
    `max_position_embeddings` is 16 times its trained length, an input of twice the trained length is left unscaled."""
    raw = (ROOT / "book" / "glossary.md").read_text(encoding="utf-8")
    section = raw[raw.index("## Where papers and code differ") :]
    main = " ".join(section[: section.index("<details>")].split())
    assert main.endswith(
        "A few terms differ between a paper and its code, or between codebases. For one, transformers' `dynamic` reads"
        " $L$ from `max_position_embeddings`, not the trained length."
    ), main
    assert "transformers 5.24's `dynamic` reads $L$ from `max_position_embeddings`" in note("dynamic NTK")
    from transformers.modeling_rope_utils import _compute_dynamic_ntk_parameters

    code = inspect.getsource(_compute_dynamic_ntk_parameters).split('"""')[-1]
    assert "config.max_position_embeddings" in code and "original_max_position_embeddings" not in code
    d, base, trained = 64, 10_000.0, 1024
    theta = posenc.rope_inv_freq(d, base, dtype=torch.float64)
    hf = hf_inv_freq(
        d,
        max_position_embeddings=16 * trained,
        seq_len=2 * trained,
        rope_type="dynamic",
        rope_theta=base,
        factor=8.0,
        original_max_position_embeddings=trained,
    ).double()
    assert torch.allclose(hf, theta, rtol=1e-6), "unscaled at twice the trained length"


def test_gemma_3_reads_an_older_files_local_base():
    """fix pass 281 (read r277b #8, omission: older Gemma 3 files name the local base `rope_local_base_freq`): the Core
    block's "An older file's `rope_local_base_freq`, the sliding-window base, becomes the `sliding_attention` entry's
    `rope_theta`": transformers 5.24's Gemma3TextConfig pops that field into the sliding-attention entry, leaving the
    full-attention entry's base alone; without it, the defaults 10 000 and 1 000 000 the bullet gives."""
    bullet = " ".join(models_block("## Core terms").split())
    assert (
        "each with its own `rope_type` and `rope_theta`. An older file's `rope_local_base_freq`, the sliding-window"
        " base, becomes the `sliding_attention` entry's `rope_theta`." in bullet
    )
    assert "Gemma 3's base is 10 000 in its sliding-window layers and 1 000 000 in its full-attention ones" in bullet
    default = transformers.Gemma3TextConfig().rope_parameters
    assert default["sliding_attention"]["rope_theta"] == 10_000.0 and default["full_attention"]["rope_theta"] == 1e6
    older = transformers.Gemma3TextConfig(rope_local_base_freq=12_345.0).rope_parameters
    assert older["sliding_attention"]["rope_theta"] == 12_345.0, older
    assert older["full_attention"]["rope_theta"] == 1e6, older
    from transformers.models.gemma3 import configuration_gemma3

    assert 'kwargs.pop("rope_local_base_freq"' in inspect.getsource(configuration_gemma3)


def test_yarn_keeps_fewer_pairs_and_llama_reaches_16l_282():
    """fix pass 282 (read r278a #2, #3, unclear): the main line's YaRN keeps fewer pairs, 0 to 18 (fix pass 286: in
    :data:`LLAMA_PAIRS_TABLE`), and "Llama 3.1 is configured for inputs up to $16L$ with this `factor`."
    Transformers' yarn with default betas keeps pairs 0 to 18 of Llama 3.1's head, llama3 keeps 0 to 28; Llama 3.1's
    file allows 16 times its original length at factor 8."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    assert YARN_FEWER_16L in " ".join(page().split()) and FLAT_PAIRS_TABLE in " ".join(page().split())
    assert "| 0 to 18 | 32 or more | kept | kept |" in LLAMA_PAIRS_TABLE  # YaRN's last kept pair, 18
    assert "| 19 to 28 | 4 to 32 | kept | ramped |" in LLAMA_PAIRS_TABLE  # `llama3`'s, 28
    d, base, L, s = llama31_head()
    plain = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    kept = {}
    for kind, extra in (("yarn", {}), ("llama3", {"low_freq_factor": 1.0, "high_freq_factor": 4.0})):
        rp = {"rope_type": kind, "rope_theta": base, "factor": s, "original_max_position_embeddings": L, **extra}
        cfg = LlamaConfig(
            hidden_size=d * 2, num_attention_heads=2, head_dim=d, max_position_embeddings=16 * L, rope_parameters=rp
        )
        inv, _ = ROPE_INIT_FUNCTIONS[kind](cfg, "cpu")
        divisor = plain / inv.double()
        kept[kind] = max(i for i in range(d // 2) if abs(divisor[i] - 1) < 1e-4)
    assert kept == {"yarn": 18, "llama3": 28}, kept
    llama = MODEL_ROPE_CONFIGS["llama-3.1-8b"]
    rs = llama["rope_scaling"]
    assert llama["max_position_embeddings"] == 16 * rs["original_max_position_embeddings"] and rs["factor"] == 8


def test_betas_bounds_exactly_at_a_pair_282():
    """fix pass 282 (read r278b #2): the betas row's "at most `beta_slow`" and the block's bullet "A pair that turns
    exactly `beta_fast` or `beta_slow` times is kept or divided as the *betas* row says when `truncate` is off. With
    `truncate` on, the rounding of a float can leave that pair in the *ramp*." Checked at the bounds over a sweep."""
    assert "those that turn at most `beta_slow` times are divided by $s$ |" in row("betas")
    assert "With `truncate` on, the rounding of a float can leave that pair in the *ramp*." in " ".join(page().split())

    off_ok, on_ramped = True, False
    for d, b, L in ((16, 1e4, 64), (16, 5e5, 64), (64, 1e4, 8192), (128, 5e5, 8192)):
        for j in range(1, d // 2):
            t = L * b ** (-2 * j / d) / (2 * math.pi)
            off_ok &= abs(float(pair_divisors(d, b, L, 1e6, t, False, 2.0)[j]) - 2) < 1e-5  # exactly beta_slow: divided
            off_ok &= (
                abs(float(pair_divisors(d, b, L, t, t / 1e6, False, 2.0)[j]) - 1) < 1e-5
            )  # exactly beta_fast: kept
            on = tuple(float(pair_divisors(d, b, L, bf, bs, True, 2.0)[j]) for bf, bs in ((1e6, t), (t, t / 1e6)))
            on_ramped |= 1 + 1e-5 < on[0] < 2 - 1e-5 or 1 + 1e-5 < on[1] < 2 - 1e-5
    assert off_ok and on_ramped


def test_weight_absorption_and_decoupled_rope_are_linked_285():
    """fix pass 285 (read r280a #7, omission: the two rows never said why they are linked): the *weight absorption*
    row's "a rotation that depends on the positions, between the query and key projections, would block it, hence
    *decoupled RoPE*" and the *decoupled RoPE* row's "it keeps *weight absorption*
    possible" (DeepSeek-V2's reason: a RoPE matrix would lie between W^Q and W^UK). With no rotation, the score
    q . k = (W_q h) . (W_uk c) equals h . (W_q^T W_uk c), one matrix for every position; with RoPE's rotations R_m on
    the query and R_n on the key, the matrix between h and c is W_q^T R_(n-m) W_uk, which changes with the offset, so
    no single folded matrix serves every key; a separate rotated part, as MLA's, leaves the compressed part's matrix
    fixed."""
    absorb = cells("weight absorption")[2]
    assert absorb.endswith(
        "; a rotation that depends on the positions, between the query and key projections, would block it, hence"
        " *decoupled RoPE*"
    ), absorb
    assert cells("decoupled RoPE")[2].endswith("; it keeps *weight absorption* possible"), cells("decoupled RoPE")
    gen = torch.Generator().manual_seed(0)
    d, model, latent = 8, 12, 4
    w_q = torch.randn(d, model, generator=gen, dtype=torch.float64)
    w_uk = torch.randn(d, latent, generator=gen, dtype=torch.float64)
    h = torch.randn(model, generator=gen, dtype=torch.float64)
    theta = posenc.rope_inv_freq(d, 10_000.0, dtype=torch.float64)

    def rotation(p: int) -> torch.Tensor:  # RoPE's block-diagonal rotation at position p, neighbours paired
        # review of the change: posenc's own R_m (RoFormer eq. 15), not a rebuilt one
        return posenc.rope_matrix(p, d, inv_freq=theta, dtype=torch.float64)

    folded = w_q.T @ w_uk  # absorbed once, used for every key
    for _ in range(5):
        c_n = torch.randn(latent, generator=gen, dtype=torch.float64)
        assert torch.allclose((w_q @ h) @ (w_uk @ c_n), h @ folded @ c_n)  # no rotation: folding works
    m = 7
    between = [w_q.T @ rotation(m).T @ rotation(n) @ w_uk for n in range(m + 1)]  # the matrix between h and c_n
    for n, mat in enumerate(between):
        c_n = torch.randn(latent, generator=gen, dtype=torch.float64)
        assert torch.allclose((rotation(m) @ w_q @ h) @ (rotation(n) @ w_uk @ c_n), h @ mat @ c_n)
        assert torch.allclose(mat, w_q.T @ rotation(n - m) @ w_uk)  # set by the offset n - m
    assert all(not torch.allclose(between[0], mat) for mat in between[1:])  # so no one folded matrix for all keys
