# Ringside on CPU: the server and four local gloo workers, `ringside up`.
# A GPU image would start from a CUDA base and drop the CPU torch pin.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN useradd --create-home --uid 1000 ringside
WORKDIR /app

# torch first, in its own layer: it is by far the largest and changes least.
RUN pip install --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

COPY pyproject.toml README.md ./
COPY worker_agent ./worker_agent
COPY server ./server
COPY frontend ./frontend
# The page ships inside the package, so the image needs no source tree at run time.
RUN pip install .

USER 1000
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/health', timeout=4)"]
# Inside a container loopback is unreachable from the host, so listen on every
# interface; the presenter and worker tokens are printed at start (docker logs).
CMD ["ringside", "up", "--host", "0.0.0.0", "--port", "8000", "--ranks", "4"]
