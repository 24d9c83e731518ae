"""Model code written the way users of HIPS autograd write it (a data module for
test_model_programs.py): a classifier whose parameters are a list of (W, b) pairs
with an L2 penalty summed by a generator, a Gaussian mixture whose parameters are a
dict unpacked by a helper and zipped, an RNN whose helpers are closures over a dict
of parameters."""

import numpy as np


def logsumexp_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    return m + np.log(np.sum(np.exp(x - m), axis=1, keepdims=True))


def net_predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp_rows(outputs)


def l2_norm(params):
    return sum(np.sum(w ** 2) + np.sum(b ** 2) for w, b in params)


def net_log_posterior(params, inputs, targets, l2_reg):
    log_prior = -l2_reg * l2_norm(params)
    log_lik = np.sum(net_predict(params, inputs) * targets)
    return log_prior + log_lik


def log_normalize(x, logsumexp):
    return x - logsumexp(x)


def unpack_gmm(params, logsumexp):
    return (log_normalize(params["log proportions"], logsumexp), params["means"],
            params["lower triangles"])


def mvn_logpdf(X, mean, chol):
    diff = X - mean
    sol = np.linalg.solve(chol, diff.T).T
    return -0.5 * np.sum(sol ** 2, axis=1) - np.sum(np.log(np.abs(np.diag(chol)))) \
        - 0.5 * X.shape[1] * np.log(2 * np.pi)


def gmm_log_likelihood(params, data, logsumexp):
    cluster_lls = []
    for log_proportion, mean, chol in zip(*unpack_gmm(params, logsumexp)):
        cluster_lls.append(log_proportion + mvn_logpdf(data, mean, chol))
    return np.sum(logsumexp(np.vstack(cluster_lls), axis=0))


def rnn_predict(params, inputs):
    def update(x, hiddens):
        return np.tanh(np.dot(np.hstack((x, hiddens)), params["change"]) + params["bias"])

    def to_output(hiddens):
        out = np.dot(hiddens, params["predict"])
        return out - np.max(out, axis=1, keepdims=True)

    hiddens = np.repeat(params["init"], inputs.shape[1], axis=0)
    outputs = [to_output(hiddens)]
    for x in inputs:
        hiddens = update(x, hiddens)
        outputs.append(to_output(hiddens))
    return outputs


def rnn_log_likelihood(params, inputs, targets):
    logprobs = rnn_predict(params, inputs)
    total = 0.0
    for t in range(inputs.shape[0]):
        total += np.sum(logprobs[t] * targets[t])
    return total / (inputs.shape[0] * inputs.shape[1])
