"""tenferro.fft (the Array API fft extension) against numpy.fft: every transform, every norm,
odd and even lengths, crop and pad, axes and s, f32 and f64, the frequencies and shifts, errors,
and gradients through a transform."""

import numpy as np
import pytest

import tenferro as tf

NORMS = ["backward", "ortho", "forward"]
rng = np.random.default_rng(0)


def _c(shape, dtype=np.complex128):
    x = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _r(shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


def _np(t):
    return np.asarray(t.numpy())


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("length", [1, 2, 5, 8, 12, 17])
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_one_dimensional_matches_numpy(name, length, norm):
    x = _r((3, length)) if name in ("rfft", "ihfft") else _c((3, length))
    ns = [None, length + 3] + ([length - 1] if length > 1 else [])
    if name in ("irfft", "hfft"):
        ns = [n for n in ns if n is not None] + ([None] if length > 1 else [])
    for n in ns:
        got = getattr(tf.fft, name)(tf.asarray(x), n=n, norm=norm)
        want = getattr(np.fft, name)(x, n=n, norm=norm)
        np.testing.assert_allclose(_np(got), want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft"])
def test_single_precision_and_axes(name):
    x = _r((4, 5, 6), np.float32) if name == "rfft" else _c((4, 5, 6), np.complex64)
    for axis in [0, 1, -1]:
        got = getattr(tf.fft, name)(tf.asarray(x), axis=axis)
        want = getattr(np.fft, name)(x.astype(np.complex128 if name != "rfft" else np.float64),
                                     axis=axis)
        assert got.dtype == (tf.float32 if name == "irfft" else tf.complex64)
        np.testing.assert_allclose(_np(got), want, rtol=1e-4, atol=1e-4)


def test_real_inputs_are_promoted():
    x = _r((2, 6))
    np.testing.assert_allclose(_np(tf.fft.fft(tf.asarray(x))), np.fft.fft(x), atol=1e-12)
    np.testing.assert_allclose(_np(tf.fft.irfft(tf.asarray(x))), np.fft.irfft(x), atol=1e-12)


@pytest.mark.parametrize("norm", NORMS)
def test_n_dimensional_matches_numpy(norm):
    z = _c((3, 4, 5))
    r = _r((3, 4, 5))
    for s, axes in [(None, None), ((3, 7), None), (None, (0, 2)), ((6, 2), (2, 0)), (None, 1)]:
        for name, x in [("fftn", z), ("ifftn", z), ("rfftn", r), ("irfftn", z)]:
            np_axes = (axes,) if isinstance(axes, int) else axes
            got = getattr(tf.fft, name)(tf.asarray(x), s=s, axes=axes, norm=norm)
            want = getattr(np.fft, name)(x, s=s, axes=np_axes, norm=norm)
            np.testing.assert_allclose(_np(got), want, rtol=1e-12, atol=1e-12,
                                       err_msg=f"{name} s={s} axes={axes}")


def test_frequencies_and_shifts():
    for n in [1, 4, 5]:
        for d in [1.0, 0.5]:
            np.testing.assert_allclose(_np(tf.fft.fftfreq(n, d=d)), np.fft.fftfreq(n, d=d))
            np.testing.assert_allclose(_np(tf.fft.rfftfreq(n, d=d)), np.fft.rfftfreq(n, d=d))
    assert tf.fft.fftfreq(4, dtype=tf.float32).dtype == tf.float32
    m = np.arange(12.0).reshape(3, 4)
    for axes in [None, 0, (1,), (0, 1)]:
        np.testing.assert_array_equal(_np(tf.fft.fftshift(tf.asarray(m), axes=axes)),
                                      np.fft.fftshift(m, axes=axes))
        np.testing.assert_array_equal(_np(tf.fft.ifftshift(tf.asarray(m), axes=axes)),
                                      np.fft.ifftshift(m, axes=axes))


def test_errors():
    z = tf.asarray(_c((2, 4)))
    with pytest.raises(tf.InvalidArgumentError, match="fft: n must be at least 1"):
        tf.fft.fft(z, n=0)
    with pytest.raises(tf.InvalidArgumentError, match="fft"):
        tf.fft.fft(z, axis=2)
    with pytest.raises(ValueError, match="norm"):
        tf.fft.fft(z, norm="bogus")
    with pytest.raises(tf.DTypeMismatchError, match="rfft: expected a real"):
        tf.fft.rfft(z)
    with pytest.raises(tf.InvalidArgumentError, match="irfft: n must be at least 1"):
        tf.fft.irfft(tf.asarray(_c((2, 1))))
    with pytest.raises(tf.InvalidArgumentError, match="fftn: duplicate axis"):
        tf.fft.fftn(z, axes=(0, -2))
    with pytest.raises(TypeError):
        tf.fft.fft(z, 4)  # n is keyword-only, as the standard


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("d", [0.0, -0.0, float("nan"), float("inf"), -float("inf"), 1e-320])
def test_frequency_spacing_must_be_finite_and_nonzero(name, d):
    # d = 0 gave inf/NaN frequencies (NumPy: ZeroDivisionError); NaN and Inf spacings too.
    with pytest.raises(tf.InvalidArgumentError, match=name + ": d "):
        getattr(tf.fft, name)(4, d=d)
    with pytest.raises(ValueError):
        getattr(tf.fft, name)(4, d=d, dtype=tf.float32)
    # A negative spacing is NumPy's too.
    np.testing.assert_allclose(_np(getattr(tf.fft, name)(5, d=-0.5)),
                               getattr(np.fft, name)(5, d=-0.5))


def test_traced_program_gives_the_eager_values():
    x = tf.asarray(_r((4, 6)))

    def f(t):
        return tf.fft.irfft(tf.fft.rfft(t, norm="ortho") * 2.0, n=6, norm="ortho")

    step = tf.Runtime().prepare(tf.trace(f, [x]))
    np.testing.assert_array_equal(_np(step(x)), _np(f(x)))


def test_gradient_through_rfft_matches_the_closed_form():
    # L = sum |rfft(x)|^2 weighted: the gradient is 2 Re(A^H A x) for the one-sided map A.
    x = _r((7,))
    g = tf.grad(lambda t: tf.sum(tf.abs(tf.fft.rfft(t, norm="ortho")) ** 2))(tf.asarray(x))
    n = 7
    a = np.fft.rfft(np.eye(n), axis=0, norm="ortho")  # (4, 7): column j is rfft(e_j)
    want = 2 * np.real(a.conj().T @ (a @ x))
    np.testing.assert_allclose(_np(g), want, rtol=1e-12, atol=1e-12)
