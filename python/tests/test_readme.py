"""The Python sample of README.md runs as written (and examples/python_taste.py is that sample)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_readme_sample_runs(capsys):
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    assert code in (ROOT / "examples" / "python_taste.py").read_text()
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out.split()
    assert out[1] == "1"  # one executor entry for the scope
