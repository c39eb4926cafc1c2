"""Settings for the JupyterLab server of ``make lab``, ``make lab-checkout`` and the JupyterLab
browser test (``tests/test_jupyterlab.py``), loaded with ``--config=lab/jupyter_server_config.py``.

**Kernel websockets without Nagle's algorithm.** jupyter_server (2.x, tornado) leaves Nagle's
algorithm on for the websocket between the browser and the kernel. A widget's reply then often
waits for a delayed TCP acknowledgement: the kernel's "busy" status goes out first, and the reply
that follows it (an explorer's new figure) is held back until the browser acknowledges that status,
which Linux delays by up to 40 ms because the browser has just sent data on the same connection.
In ``make browser-lab`` about a third of the explorers' redraws waited 30 to 50 ms this way.
``set_nodelay(True)`` (tornado's own switch for this) sends each message as it is written.

The same lines in a ``jupyter_server_config.py`` of your own Jupyter config folder
(``jupyter --config-dir``) give any JupyterLab the same behaviour.
"""
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection


class NoDelayKernelConnection(ZMQChannelsWebsocketConnection):
    """The default kernel websocket connection, with Nagle's algorithm off."""

    def connect(self):
        self.websocket_handler.set_nodelay(True)
        self.log.info("Kernel %s: websocket without Nagle's algorithm (TCP_NODELAY)", self.kernel_id)
        return super().connect()


c = get_config()  # noqa: F821 - provided by the config loader
c.ServerApp.kernel_websocket_connection_class = NoDelayKernelConnection
