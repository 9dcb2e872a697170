"""Mutation fuzzer for the header and index readers, with the reference `safetensors` as oracle.

mutate.py makes cases, oracle.py judges one, campaign.py runs them in a watched worker process
(per-case timeout, crash capture) and keeps a minimized corpus under corpus/.
"""
