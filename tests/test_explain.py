"""`s2sad.explain` and `s2sad show --html`: the page that shows a function and its
derivative side by side with their lines linked.

The page's structure, its links and its determinism are checked on the HTML text.
`test_in_a_browser` loads the page in headless Chromium (through selenium and
chromedriver; skipped, saying what is missing, where they are not installed) and
checks what a user does: hover and click a line on either side, switch tabs;
`test_in_a_notebook` puts two pages in one document as Jupyter does. The first
saves a screenshot to a temporary folder, and to docs/explain.png (the picture in
the docs) where that file is missing or ``S2SAD_UPDATE_SCREENSHOTS=1``.
"""

import html
import math
import os
import re
import shutil
import subprocess
import sys

import pytest

import s2sad
from s2sad import cli
from s2sad.api import explain as explain_mod

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "examples", "seeds.py")


def helper(a, b):
    return a * math.sin(b)


def looped(x, y):
    s = 0.0
    for i in range(3):
        s = s + helper(x, y) * i
    if s > 1:
        s = s * x
    return s


def long_lines(a_rather_long_parameter_name, another_rather_long_parameter):
    total = math.atan2(a_rather_long_parameter_name, another_rather_long_parameter) * \
        math.hypot(a_rather_long_parameter_name, another_rather_long_parameter)
    return total


def loss():
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        import seeds
    finally:
        sys.path.remove(os.path.join(ROOT, "examples"))
    return seeds.loss


def lines_of(page: str, where: str) -> list:
    """``(data-loc or None, text)`` for each code line of the user pane (``user``) or
    of one stage's tab (its name)."""
    if where == "user":
        part = page[page.index('<div class="s2x-pane s2x-user">'):
                    page.index('<div class="s2x-pane s2x-out">')]
    else:
        part = page[page.index(f'data-stage="{where}"'):]
        part = part[: part.index("</pre>")]
    out = []
    for m in re.finditer(r'<span class="s2x-line"(?: data-loc="(\d+)")?>'
                         r'<span class="s2x-no">\d+</span>(.*)\n</span>', part):
        out.append((m.group(1), html.unescape(re.sub(r"<[^>]+>", "", m.group(2)))))
    return out


# ------------------------------------------------------------------ the page


def test_source_and_derivative_with_every_comment_linked_to_its_line():
    page = s2sad.explain(looped, wrt="x").html()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    user, rev = lines_of(page, "user"), lines_of(page, "reverse")
    texts = [t for _, t in user]  # the function first, then the functions it calls, once
    assert texts.count("def helper(a, b):") == 1
    assert texts[0] == "def looped(x, y):" and texts[-2:] == ["def helper(a, b):",
                                                              "    return a * math.sin(b)"]
    loc_of_user = {t.strip(): loc for loc, t in user}
    # the derivative is the code `source` prints, line for line
    assert [t for _, t in rev] == s2sad.source(looped, wrt="x").splitlines()
    comments = [(loc, t.strip()) for loc, t in rev if t.strip().startswith("# line ")]
    assert len(comments) >= 5
    for loc, comment in comments:  # "# line 9: s = s + helper(x, y) * i"
        assert loc == loc_of_user[comment.split(": ", 1)[1]], comment
    # the derivative functions' defs are linked to the user's defs
    assert dict(rev)[loc_of_user["def looped(x, y):"]] == "def looped_grad(x, y):"
    defs = {t: loc for loc, t in rev if t.startswith("def ")}
    assert defs["def helper_bwd(saved, t2_bar):"] == loc_of_user["def helper(a, b):"]
    # every stage is a tab; the reverse one open
    for stage in ("anf", "dup", "activity", "reverse", "forward"):
        selected = "true" if stage == "reverse" else "false"
        assert (f'data-tab="{stage}" aria-selected="{selected}"') in page
        hidden = "" if stage == "reverse" else " hidden"
        assert f'<div class="s2x-stage" data-stage="{stage}"{hidden}>' in page
        assert [t for _, t in lines_of(page, stage)] == \
            s2sad.source(looped, wrt="x", stage=stage).splitlines()
    assert any(loc is not None for loc, _ in lines_of(page, "anf"))


def test_the_page_fetches_nothing_and_is_the_same_every_time():
    first = s2sad.explain(looped, wrt=1).html()
    assert first == s2sad.explain(looped, wrt=1).html()
    assert first == s2sad.explain(looped, wrt="y").html()
    for fetch in ("http:", "https:", "<link", "src=", "@import", "url("):
        assert fetch not in first
    assert first.count("<style>") == 1 and first.count("<script>") == 1
    # Jupyter shows the page's body
    explained = s2sad.explain(looped)
    assert explained._repr_html_() == explained.fragment()
    assert explained._repr_html_() in explained.html()


def test_black_split_lines_keep_their_link():
    page = s2sad.explain(long_lines, wrt=(0, 1)).html()
    rev = lines_of(page, "reverse")
    user = {t.strip(): loc for loc, t in lines_of(page, "user")}
    total = user["total = math.atan2(a_rather_long_parameter_name, "
                 "another_rather_long_parameter) * \\"]
    assert [t for _, t in rev] == s2sad.source(long_lines, wrt=(0, 1)).splitlines()
    split = [i for i, (_, t) in enumerate(rev) if t.rstrip().endswith("(")]
    assert split, "no line black splits: the test needs a longer line"
    linked = []
    for i in split:  # the lines black made of one line share its link
        j = i
        while rev[j][1].strip() != ")":
            j += 1
        assert len({loc for loc, _ in rev[i:j + 1]}) == 1, rev[i:j + 1]
        linked.append(rev[i][0])
    assert total in linked


def test_forward_mode_and_checkpoint():
    page = s2sad.explain(looped, mode="forward").html()
    assert 'data-tab="forward" aria-selected="true"' in page
    assert '<div class="s2x-stage" data-stage="forward">' in page
    assert "def looped_jvp(x, y, x_dot):" in [t for _, t in lines_of(page, "forward")]
    ckpt = s2sad.explain(looped, checkpoint="ctz")
    assert ckpt.texts["reverse"] == s2sad.source(looped, checkpoint="ctz")
    assert ckpt.texts["forward"] == s2sad.source(looped, mode="forward")
    typed = s2sad.explain(loss(), wrt=("w", "b"), example=(0.5, 0.1, 2.0, 1.0))
    assert typed.texts["reverse"] == s2sad.source(loss(), wrt=("w", "b"),
                                                  example=(0.5, 0.1, 2.0, 1.0))


def test_repr_says_how_to_see_it():
    text = repr(s2sad.explain(looped))
    assert text == str(s2sad.explain(looped))
    assert "Jupyter" in text and '.save("looped.html")' in text and "--html" in text


def test_save(tmp_path):
    explained = s2sad.explain(looped)
    path = explained.save(tmp_path / "looped.html")
    assert path == str(tmp_path / "looped.html")
    assert open(path, encoding="utf-8").read() == explained.html()


def test_bad_input_is_refused_clearly():
    with pytest.raises(s2sad.S2SADError, match="mode='tape' is not a mode of the compiler"):
        s2sad.explain(looped, mode="tape")
    with pytest.raises(s2sad.WrtError):
        s2sad.explain(looped, wrt="z")
    with pytest.raises(s2sad.S2SADError):
        s2sad.explain(42)
    with pytest.raises(s2sad.UnsupportedSyntaxError):  # the mode's own stage: raised
        s2sad.explain(cli.load(f"{SEEDS}:broken"))


def test_a_stage_the_compiler_refuses_says_why_in_its_tab():
    def points(x):
        pts = []
        for i in range(3):
            pts.append((x * i, x))
        q = pts[1]  # (an item of a list of tuples kept as a tuple)
        return q[0] * q[1]

    with pytest.raises(s2sad.NotDifferentiableError) as refused:  # reverse mode refuses
        s2sad.source(points)
    explained = s2sad.explain(points, mode="forward")  # forward mode does not
    assert explained.texts["forward"] == s2sad.source(points, mode="forward")
    assert explained.stages["reverse"].refused == refused.value.one_line()
    assert "reverse" not in explained.texts
    page = explained.html()
    assert (f'<p class="s2x-refused">s2sad cannot show this stage for {html.escape(points.__qualname__)}: '
            f'{html.escape(refused.value.one_line())}</p>') in page
    with pytest.raises(s2sad.NotDifferentiableError):  # the mode's own stage raises
        s2sad.explain(points)


def test_highlighter():
    lines = explain_mod.highlight(['def f(x):  # a < b', '    return "s" if x else None', "1 +"])
    assert lines[0] == ('<span class="s2x-kw">def</span> <span class="s2x-def">f</span>(x):  '
                        '<span class="s2x-com"># a &lt; b</span>')
    assert '<span class="s2x-str">&quot;s&quot;</span>' in lines[1]
    assert '<span class="s2x-const">None</span>' in lines[1]
    # text tokenize cannot read stays, escaped
    assert explain_mod.highlight(['"""open', "<x>"]) == ["&quot;&quot;&quot;open", "&lt;x&gt;"]


# ----------------------------------------------------------------- the CLI


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_show_html_writes_the_page(tmp_path):
    out = tmp_path / "loss.html"
    done = run_cli("show", "--html", str(out), "examples/seeds.py:loss", "--wrt", "w,b")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote {out}\n"
    page = out.read_text(encoding="utf-8")
    func = cli.load("examples/seeds.py:loss")
    assert page == s2sad.explain(func, wrt=("w", "b")).html()
    assert "examples/seeds.py" in page


def test_show_html_refuses_a_stage_and_reports_errors(tmp_path):
    out = tmp_path / "f.html"
    done = run_cli("show", "--html", str(out), "examples/seeds.py:loss", "--stage", "anf")
    assert done.returncode == 2 and "every stage" in done.stderr
    done = run_cli("show", "--html", str(out), "examples/seeds.py:broken")
    assert done.returncode == 1 and done.stderr.startswith("s2sad: error: examples/seeds.py:")
    assert not out.exists()
    done = run_cli("show", "--html", str(tmp_path / "no" / "f.html"), "examples/seeds.py:z")
    assert done.returncode == 1
    assert done.stderr == f"s2sad: error: cannot write {tmp_path / 'no' / 'f.html'}: " \
                          "No such file or directory\n"


# ------------------------------------------------------------- the browser


def browser():
    """A headless Chromium under selenium, or a reason to skip."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (pip install -e '.[browser]')")
    binary = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")
                   if shutil.which(n)), None)
    driver = shutil.which("chromedriver")
    if binary is None or driver is None:
        pytest.skip("Chromium and chromedriver are not installed "
                    "(apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                "--disable-gpu", "--window-size=1400,760", "--hide-scrollbars"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


def test_in_a_browser(tmp_path, monkeypatch):
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[browser]')")
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    monkeypatch.chdir(ROOT)  # (the page names the file as typed: examples/seeds.py)
    page = tmp_path / "loss.html"
    s2sad.explain(cli.load("examples/seeds.py:loss"), wrt=("w", "b")).save(page)
    driver = browser()
    try:
        driver.get(page.as_uri())
        user = driver.find_element(By.CSS_SELECTOR, ".s2x-user")
        out = driver.find_element(By.CSS_SELECTOR, ".s2x-out")

        def shown(stage):
            return out.find_element(By.CSS_SELECTOR, f'.s2x-stage[data-stage="{stage}"]')

        def user_line(text):
            return next(e for e in user.find_elements(By.CSS_SELECTOR, ".s2x-line")
                        if e.text.split(None, 1)[1:] == [text])

        def marked(scope, cls):
            return [e.text for e in scope.find_elements(By.CSS_SELECTOR, f".{cls}")]

        # hovering a user line lights its derivative lines, and only those
        line = user_line("e = math.exp(t)")
        ActionChains(driver).move_to_element(line).perform()
        assert "s2x-hot" in line.get_attribute("class")
        hot = marked(shown("reverse"), "s2x-hot")
        assert any(t.endswith("# line 46: e = math.exp(t)") for t in hot), hot
        assert any(t.endswith("e_bar = e_b_bar - result_bar * result / t4") for t in hot), hot
        assert not any("t_bar = result_bar * result / t3 * t2" in t for t in hot), hot
        assert marked(user, "s2x-hot") == [line.text]
        # and the other way round
        target = next(e for e in shown("reverse").find_elements(By.CSS_SELECTOR, ".s2x-line")
                      if e.text.endswith("t2_bar = 2.0 * t2"))
        ActionChains(driver).move_to_element(target).perform()
        assert [t.split(None, 1)[1] for t in marked(user, "s2x-hot")] == \
            ["return (p - y) ** 2"]
        assert "s2x-hot" not in line.get_attribute("class")
        # a click pins a line and what it is linked to
        pinned = user_line("return e / (1.0 + e)")
        pinned.click()
        assert any(t.endswith("# line 47: return e / (1.0 + e)")
                   for t in marked(shown("reverse"), "s2x-pin"))
        assert marked(user, "s2x-pin") == [pinned.text]
        # the picture in the docs: the gradient of loss, one line pinned
        called = user_line("p = sigmoid(w * x + b)")
        called.click()
        ActionChains(driver).move_to_element(called).perform()
        shot = tmp_path / "explain.png"
        assert driver.find_element(By.CSS_SELECTOR, ".s2x").screenshot(str(shot))
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        docs = os.path.join(ROOT, "docs", "explain.png")
        if not os.path.exists(docs) or os.environ.get("S2SAD_UPDATE_SCREENSHOTS") == "1":
            shutil.copyfile(shot, docs)
        pinned.click()
        assert marked(user, "s2x-pin") == [pinned.text]
        # the tabs: anf open, reverse hidden, and its lines linked too
        driver.find_element(By.CSS_SELECTOR, '.s2x-tab[data-tab="anf"]').click()
        assert shown("anf").is_displayed() and not shown("reverse").is_displayed()
        assert driver.find_element(By.CSS_SELECTOR, '.s2x-tab[data-tab="anf"]') \
            .get_attribute("aria-selected") == "true"
        assert marked(user, "s2x-pin") == [pinned.text]  # (anf shows loss only)
        assert marked(shown("anf"), "s2x-pin") == []
        pinned.click()
        assert marked(user, "s2x-pin") == []  # a second click unpins
        pinned = user_line("return (p - y) ** 2")
        pinned.click()
        assert [t.split(None, 1)[1] for t in marked(shown("anf"), "s2x-pin")] == \
            ["t3 = p - y", "t4 = t3**2", "return t4"]
        ActionChains(driver).move_to_element(user_line("p = sigmoid(w * x + b)")).perform()
        assert [t.split(None, 1)[1] for t in marked(shown("anf"), "s2x-hot")] == \
            ["t1 = w * x", "t2 = t1 + b", "p = sigmoid(t2)"]
        assert marked(shown("reverse"), "s2x-hot") == []  # (hidden tabs are left alone)
        logs = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert logs == []
    finally:
        driver.quit()


def test_in_a_notebook(tmp_path):
    """Two outputs in one document, inserted as Jupyter inserts HTML (innerHTML, then
    each script run again): each page works on its own."""
    pytest.importorskip("selenium", reason="selenium is not installed (pip install -e '.[browser]')")
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    notebook = tmp_path / "notebook.html"
    notebook.write_text("<!DOCTYPE html><html><body><pre>In [1]: ...</pre>"
                        "<div class='output'></div><div class='output'></div></body></html>")
    fragments = [s2sad.explain(looped)._repr_html_(), s2sad.explain(helper)._repr_html_()]
    driver = browser()
    try:
        driver.get(notebook.as_uri())
        driver.execute_script("""
            const outputs = document.querySelectorAll('.output');
            arguments[0].forEach((fragment, i) => {
              outputs[i].innerHTML = fragment;
              outputs[i].querySelectorAll('script').forEach(old => {
                const script = document.createElement('script');
                script.textContent = old.textContent;
                old.replaceWith(script);
              });
            });""", fragments)
        first, second = driver.find_elements(By.CSS_SELECTOR, ".output")
        line = next(e for e in second.find_elements(By.CSS_SELECTOR, ".s2x-user .s2x-line")
                    if e.text.endswith("return a * math.sin(b)"))
        ActionChains(driver).move_to_element(line).perform()
        hot = [e.text for e in second.find_elements(By.CSS_SELECTOR, ".s2x-out .s2x-hot")]
        comment = f"# line {helper.__code__.co_firstlineno + 1}: return a * math.sin(b)"
        assert any(t.endswith(comment) for t in hot), hot
        assert first.find_elements(By.CSS_SELECTOR, ".s2x-hot") == []
        first.find_element(By.CSS_SELECTOR, '.s2x-tab[data-tab="dup"]').click()
        assert first.find_element(By.CSS_SELECTOR, '.s2x-stage[data-stage="dup"]').is_displayed()
        assert second.find_element(By.CSS_SELECTOR, '.s2x-stage[data-stage="reverse"]') \
            .is_displayed()
        # the page's styles stay inside it
        assert driver.find_element(By.CSS_SELECTOR, "body > pre").value_of_css_property(
            "font-size") != "12.5px"
        assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []
    finally:
        driver.quit()
