.PHONY: run test setup lint bench compose-check

setup:
	@bash scripts/setup.sh

## The whole platform on 127.0.0.1: web (serve_web on :8000), Celery worker + beat, the local model server (:8080).
## METNOS_WEB_WORKERS=N web processes behind haproxy on that address (scripts/run_web.py), METNOS_CELERY_WORKERS=M
## workers (honcho runs M copies; each named after honcho's $PORT). Beat stays one: a second one refuses to start.
run: setup
	@echo "Metnos is starting at http://$${METNOS_HOST:-127.0.0.1}:$${METNOS_PORT:-8000}/  (Ctrl-C stops everything)"
	@exec .venv/bin/honcho -f Procfile start -c worker=$${METNOS_CELERY_WORKERS:-1}

## The test suite, against real PostgreSQL, Redis, Celery, daphne and the llama.cpp server.
test: setup
	bash scripts/ensure_test_tools.sh
	.venv/bin/pytest

lint:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .

bench:
	.venv/bin/python bench/turn_latency.py --quick
	.venv/bin/python bench/routing.py --quick
	.venv/bin/python bench/prefilter.py --quick
	.venv/bin/python bench/engine_vs_react.py --quick
	.venv/bin/python bench/plan_memory_accuracy.py --quick
	.venv/bin/python bench/prefilter_peer.py --quick --split odd
	.venv/bin/python bench/dashboard_scale.py --quick
	.venv/bin/python bench/gateway_overhead.py --quick
	.venv/bin/python bench/agent_tasks.py --quick

compose-check:
	docker-compose config -q
