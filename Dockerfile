# One image for web, worker, beat and the model server (docker-compose.yml picks the command).
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    # A portable llama.cpp build: the default -march=native would not run on other CPUs.
    CMAKE_ARGS="-DGGML_NATIVE=OFF"
# bubblewrap confines shell steps (run_shell); where the container may not make namespaces, they
# are refused (METNOS_SHELL_SANDBOX=off runs them unconfined, knowingly).
RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake git bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
# PyPI's Linux torch wheel is the multi-GB CUDA build. Point TORCH_INDEX_URL at PyTorch's CPU
# wheel index to install torch==2.13.0 as the CPU build first.
ARG TORCH_INDEX_URL=""
COPY requirements.txt requirements-nodeps.txt constraints.txt ./
RUN if [ -n "$TORCH_INDEX_URL" ]; then pip install --no-cache-dir --index-url "$TORCH_INDEX_URL" torch==2.13.0; fi \
    && pip install --no-cache-dir -r requirements.txt -c constraints.txt \
    && pip install --no-cache-dir --no-deps -r requirements-nodeps.txt
COPY . .
RUN chmod +x scripts/docker-entrypoint.sh
ENTRYPOINT ["scripts/docker-entrypoint.sh"]
# The web tier (granian; METNOS_WEB_SERVER=daphne for daphne); the worker, beat, model and
# migrate services and the Kubernetes manifests (deploy/k8s) give their own commands.
EXPOSE 8000
CMD ["python", "manage.py", "serve_web", "--host", "0.0.0.0", "--port", "8000"]
