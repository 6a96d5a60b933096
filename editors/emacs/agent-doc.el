;;; agent-doc.el --- agent-doc client for Emacs (eglot) -*- lexical-binding: t; -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, convenience
;; URL: https://github.com/btakita/agent-doc

;;; Commentary:

;; A thin client of the `agent-doc-lsp' language server.  The agent's answers
;; arrive as LSP workspace edits in the open buffer (unsaved edits included);
;; every action is a `workspace/executeCommand' with ONE object argument that
;; carries the document `uri'.
;;
;;   (require 'agent-doc)
;;   (agent-doc-setup)   ; eglot registration (first), auto-start, hooks, keys
;;
;; `agent-doc-lsp' must be on the `exec-path' Emacs sees (a virtualenv that
;; is not activated in Emacs's environment is not), or set
;; `agent-doc-server-command' to its absolute path.  Session documents
;; (frontmatter with `agent_doc_session:') start eglot by themselves, in
;; `markdown-mode', `gfm-mode' or, without markdown-mode installed, the
;; fallback `agent-doc-markdown-mode' for *.md files.
;;
;; Keys in `agent-doc-mode' (markdown buffers):
;;   C-c a a / C-M-S-a  submit (agentDoc.route)
;;   C-c a c / C-M-S-c  claim  (agentDoc.claim)
;;   C-c a l / C-M-S-l  sync   (agentDoc.sync)
;;   C-c a m            commit (agentDoc.commit)
;;   C-c a d            diff   (agentDoc.diff)
;;   C-c a q            ask the document's ACP agent (agentDoc.runAgent)
;;   C-c a k            stop the ACP agent (agentDoc.stopAgent)
;; Permission prompts arrive as `window/showMessageRequest', which eglot
;; answers through the minibuffer.

;;; Code:

(require 'cl-lib)
(require 'seq)
(require 'eglot)
(require 'jsonrpc)

(declare-function agent-doc-acp-before-edit "agent-doc-acp" (version))

(defgroup agent-doc nil
  "Markdown documents as live conversations with an AI coding agent."
  :group 'tools
  :prefix "agent-doc-")

(defcustom agent-doc-server-command '("agent-doc-lsp")
  "Command (program and arguments) that starts the language server.
The program is looked up in `exec-path'; an absolute path works too, e.g.
\\='(\"/home/me/agent-doc/.venv/bin/agent-doc-lsp\")."
  :type '(repeat string))

(defcustom agent-doc-auto-start t
  "Start eglot by itself in session documents (`agent_doc_session:')."
  :type 'boolean)

(defcustom agent-doc-auto-sync t
  "Sync the tmux layout when the window layout changes (debounced)."
  :type 'boolean)

(defcustom agent-doc-sync-delay 0.5
  "Seconds of quiet before an automatic layout sync."
  :type 'number)

(defcustom agent-doc-tmux-window nil
  "tmux window passed to sync and claim (nil: the server decides)."
  :type '(choice (const nil) string))

(defvar agent-doc--status (make-hash-table :test #'equal)
  "Document URI -> plist of its last `agentDoc/status'.")

(defvar agent-doc--sync-timer nil)
(defvar agent-doc--sync-inflight nil)
(defvar agent-doc--sync-pending nil)
(defvar agent-doc--sync-last nil)
(defvar agent-doc--sync-focus nil
  "URI of the last session document focused in a normal window.")

;;;; Major mode fallback

(define-derived-mode agent-doc-markdown-mode text-mode "Markdown"
  "Plain markdown editing for agent-doc when `markdown-mode' is not installed.")

(defun agent-doc--markdown-mode ()
  "The major mode to use for .md files."
  (if (fboundp 'markdown-mode) 'markdown-mode 'agent-doc-markdown-mode))

;;;; Talking to the server

(defun agent-doc--server ()
  "The eglot server of the current buffer, or signal a user error."
  (or (eglot-current-server)
      (user-error "agent-doc: no language server here (M-x eglot)")))

(defun agent-doc--uri (&optional buffer)
  "The LSP URI of BUFFER's file."
  (let ((file (buffer-file-name (or buffer (current-buffer)))))
    (unless file (user-error "agent-doc: buffer has no file"))
    (eglot--path-to-uri file)))

(defun agent-doc-execute (command args &optional on-success timeout)
  "Send `workspace/executeCommand' COMMAND with the object ARGS (a plist).
Asynchronous; ON-SUCCESS is called with the result; TIMEOUT in seconds
\(default `jsonrpc-default-request-timeout').  Returns the request id."
  (let ((server (agent-doc--server)))
    (jsonrpc-async-request
     server :workspace/executeCommand
     (list :command command :arguments (vector args))
     :success-fn (lambda (result)
                   (when on-success (funcall on-success result)))
     :error-fn (lambda (err)
                 (message "agent-doc: %s failed: %s" command
                          (or (plist-get err :message) err)))
     :timeout-fn (lambda () (message "agent-doc: %s timed out" command))
     :timeout (or timeout jsonrpc-default-request-timeout))))

(defun agent-doc--report (result)
  "Show a message RESULT carries."
  (let ((msg (and (listp result) (plist-get result :message))))
    (when (stringp msg) (message "agent-doc: %s" msg))))

;;;; Commands

(defun agent-doc-submit ()
  "Send the current document to its agent (`agentDoc.route')."
  (interactive)
  (agent-doc-execute "agentDoc.route" (list :uri (agent-doc--uri)) #'agent-doc--report))

(defun agent-doc-claim (&optional target force)
  "Bind the document to a tmux pane (`agentDoc.claim').
TARGET is left/right/top/bottom or a pane id %N; FORCE (prefix arg)
takes a pane bound to another document."
  (interactive
   (list (completing-read "Claim pane (empty: server decides): "
                          '("left" "right" "top" "bottom") nil nil)
         current-prefix-arg))
  (let ((args (list :uri (agent-doc--uri))))
    (when (and target (not (string-empty-p target)))
      (setq args (append args (if (string-prefix-p "%" target)
                                  (list :pane target)
                                (list :position target)))))
    (when agent-doc-tmux-window
      (setq args (append args (list :window agent-doc-tmux-window))))
    (when force (setq args (append args (list :force t))))
    (agent-doc-execute "agentDoc.claim" (agent-doc--with-client-pane args)
                       #'agent-doc--report)))

(defun agent-doc--with-client-pane (args)
  "ARGS plus `:clientPane', the tmux pane Emacs runs in (never bound or moved)."
  (let ((pane (getenv "TMUX_PANE")))
    (if (and pane (not (string-empty-p pane)))
        (append args (list :clientPane pane))
      args)))

(defun agent-doc-commit ()
  "Commit the current document (`agentDoc.commit')."
  (interactive)
  (agent-doc-execute "agentDoc.commit" (list :uri (agent-doc--uri)) #'agent-doc--report))

(defun agent-doc-diff ()
  "Show the document's diff since the last snapshot (`agentDoc.diff')."
  (interactive)
  (agent-doc-execute
   "agentDoc.diff" (list :uri (agent-doc--uri))
   (lambda (result)
     (let ((text (if (listp result) (plist-get result :diff) result)))
       (if (not (and (stringp text) (not (string-empty-p text))))
           (message "agent-doc: no changes since the last snapshot")
         (with-current-buffer (get-buffer-create "*agent-doc diff*")
           (let ((inhibit-read-only t))
             (erase-buffer)
             (insert text)
             (diff-mode))
           (display-buffer (current-buffer))))))))

;;;; Layout sync

(defun agent-doc--session-buffer-p (buffer)
  "Non-nil if BUFFER is a markdown session document visiting a file."
  (with-current-buffer buffer
    (and buffer-file-name
         (derived-mode-p 'markdown-mode 'agent-doc-markdown-mode)
         (save-excursion
           (save-restriction
             (widen)
             (goto-char (point-min))
             (and (looking-at "---[ \t]*$")
                  (let ((end (save-excursion (forward-line 1)
                                             (re-search-forward "^\\(---\\|\\.\\.\\.\\)[ \t]*$" nil t))))
                    (and end (re-search-forward "^agent_doc_session:[ \t]*[^ \t\n]" end t)))))))))

(defun agent-doc--normal-window-p (window)
  "Non-nil if WINDOW is an ordinary editing window (not side, dedicated or child)."
  (and (not (window-parameter window 'window-side))
       (not (window-dedicated-p window))
       (not (and (fboundp 'frame-parent) (frame-parent (window-frame window))))))

(defun agent-doc--sync-focus ()
  "The session document to focus: the selected one, else the last one focused.
Help, diff and other non-session windows never change the focus."
  (let ((uri (and (agent-doc--normal-window-p (selected-window))
                  (agent-doc--session-buffer-p (current-buffer))
                  (agent-doc--uri))))
    (when uri (setq agent-doc--sync-focus uri))
    agent-doc--sync-focus))

(defun agent-doc-columns (&optional frame)
  "Columns of session document URIs in FRAME: left to right, top to bottom.
Only session documents in normal windows count."
  (let ((cols (make-hash-table)) (lefts '()) (seen '()))
    (dolist (win (seq-filter #'agent-doc--normal-window-p
                             (window-list frame 'no-minibuf)))
      (let ((left (nth 0 (window-edges win))))
        (unless (gethash left cols) (push left lefts))
        (puthash left (cons win (gethash left cols)) cols)))
    (delq nil
          (mapcar
           (lambda (left)
             (let* ((wins (sort (gethash left cols)
                                (lambda (a b) (< (nth 1 (window-edges a))
                                                 (nth 1 (window-edges b))))))
                    (uris (cl-loop for w in wins
                                   for b = (window-buffer w)
                                   for u = (and (agent-doc--session-buffer-p b)
                                                (agent-doc--uri b))
                                   when (and u (not (member u seen)))
                                   collect (progn (push u seen) u))))
               (and uris (vconcat uris))))
           (sort lefts #'<)))))

(defun agent-doc--send-sync (force)
  "Send `agentDoc.sync' for the selected frame (skip unchanged unless FORCE)."
  (let* ((columns (agent-doc-columns))
         (focus (let ((f (agent-doc--sync-focus)))
                  (and f (seq-some (lambda (col) (seq-contains-p col f)) columns) f)))
         (key (list columns focus)))
    (when (and columns (or force (not (equal key agent-doc--sync-last)))
               (eglot-current-server))
      (let ((args (list :uri (or focus (aref (car columns) 0))
                        :columns (vconcat columns)
                        :focus (or focus (aref (car columns) 0)))))
        (when agent-doc-tmux-window
          (setq args (append args (list :window agent-doc-tmux-window))))
        (setq args (agent-doc--with-client-pane args))
        (setq agent-doc--sync-inflight t)
        (let ((done (lambda (ok)
                      (setq agent-doc--sync-inflight nil)
                      (when ok (setq agent-doc--sync-last key))
                      (when agent-doc--sync-pending
                        (setq agent-doc--sync-pending nil)
                        (agent-doc--schedule-sync)))))
          (jsonrpc-async-request
           (eglot-current-server) :workspace/executeCommand
           (list :command "agentDoc.sync" :arguments (vector args))
           :success-fn (lambda (_) (funcall done t))
           :error-fn (lambda (err)
                       (message "agent-doc: sync failed: %s" (plist-get err :message))
                       (funcall done nil))
           :timeout-fn (lambda () (funcall done nil))))))))

(defun agent-doc-sync ()
  "Mirror the frame's window columns in tmux now (`agentDoc.sync')."
  (interactive)
  (if agent-doc--sync-inflight
      (setq agent-doc--sync-pending t)
    (agent-doc--send-sync t)))

(defun agent-doc--schedule-sync ()
  "Debounced automatic sync; one request in flight."
  (when (timerp agent-doc--sync-timer) (cancel-timer agent-doc--sync-timer))
  (setq agent-doc--sync-timer
        (run-with-idle-timer
         agent-doc-sync-delay nil
         (lambda ()
           (if agent-doc--sync-inflight
               (setq agent-doc--sync-pending t)
             (ignore-errors (agent-doc--send-sync nil)))))))

(defun agent-doc--window-change ()
  "Hook: schedule a sync when session documents are visible."
  (when (and agent-doc-auto-sync
             (cl-some (lambda (w) (agent-doc--session-buffer-p (window-buffer w)))
                      (window-list nil 'no-minibuf)))
    (agent-doc--schedule-sync)))

;;;; Notifications and mode line

(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentDoc/status)) &rest params)
  "Record agent state from `agentDoc/status' PARAMS."
  (let ((items (if (plist-member params :documents)
                   (append (plist-get params :documents) nil)
                 (list params))))
    (dolist (item items)
      (let ((uri (plist-get item :uri)) (state (plist-get item :state)))
        (when (stringp uri)
          (if (and state (not (eq state :null)))
              (puthash uri item agent-doc--status)
            (remhash uri agent-doc--status))))))
  (force-mode-line-update t))

(cl-defmethod eglot-handle-notification
  (_server (_method (eql agentDoc/vcsRefresh)) &rest _params)
  "Revert unmodified buffers changed on disk; refresh VC and diff-hl."
  (dolist (buf (buffer-list))
    (with-current-buffer buf
      (when (and buffer-file-name (not (buffer-modified-p))
                 (not (verify-visited-file-modtime buf)))
        (ignore-errors (revert-buffer t t t)))
      (when buffer-file-name
        (when (fboundp 'vc-refresh-state) (ignore-errors (vc-refresh-state)))
        (when (fboundp 'diff-hl-update) (ignore-errors (diff-hl-update)))))))

(defun agent-doc-format-status (item)
  "Mode-line text of a status ITEM plist (\"\" when nil)."
  (if (null item) ""
    (let* ((state (format "%s" (plist-get item :state)))
           (code (plist-get item :exitCode))
           (text (concat "agent: " (if (equal state "none") "no agent"
                                       (replace-regexp-in-string "_" " " state)))))
      (if (and (equal state "exited") (numberp code))
          (format "%s (%d)" text code)
        text))))

(defun agent-doc-mode-line ()
  "Agent state (and room status, when shared) of the current document."
  (if (and buffer-file-name (eglot-current-server))
      (let ((s (agent-doc-format-status
                (gethash (agent-doc--uri) agent-doc--status)))
            (shared (if (fboundp 'agent-doc-share-label) (agent-doc-share-label) "")))
        (concat (if (string-empty-p s) "" (concat " [" s "]"))
                (if (string-empty-p shared) "" (concat " [" shared "]"))))
    ""))

;;;; The agent's edits: flushed changes, point kept, one undo step

(defvar agent-doc-last-apply-time nil
  "`float-time' when the agent's last workspace edit was applied (or nil).")

(defun agent-doc--apply-text-edits (orig edits &optional version)
  "Apply the agent's EDITS (for VERSION) so that a typing person never notices.
Around `eglot--apply-text-edits' (ORIG), in `agent-doc-mode' buffers only:
changes eglot has not sent yet (it waits `eglot-send-changes-idle-time') are
sent first, so a stale edit is rejected and re-planned at once; point and
every window's point stay with the person's text (markers that stay before
text inserted at them); undo boundaries before and after make one undo
remove exactly the agent's write.  Before the first streamed edit of an
ACP answer the undo state is remembered (`agent-doc-acp-before-edit'), so
that the whole answer becomes one undo step once it landed."
  (if (not (bound-and-true-p agent-doc-mode))
      (funcall orig edits version)
    (when (and version (not (equal version eglot--versioned-identifier)))
      (ignore-errors (eglot--signal-textDocument/didChange)))
    (let ((here (copy-marker (point)))
          (windows (mapcar (lambda (w) (cons w (copy-marker (window-point w))))
                           (get-buffer-window-list (current-buffer) nil t))))
      (undo-boundary)
      (when (fboundp 'agent-doc-acp-before-edit) (agent-doc-acp-before-edit version))
      (unwind-protect
          (progn (funcall orig edits version)
                 (setq agent-doc-last-apply-time (float-time)))
        (undo-boundary)
        ;; The person's next keystroke must not amalgamate into our change.
        (setq undo-auto--last-boundary-cause 0)
        (goto-char here)
        (set-marker here nil)
        (dolist (pin windows)
          (when (window-live-p (car pin))
            (set-window-point (car pin) (cdr pin)))
          (set-marker (cdr pin) nil))))))

;;;; Minor mode, keys, setup

(defvar agent-doc-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c a a") #'agent-doc-submit)
    (define-key map (kbd "C-c a c") #'agent-doc-claim)
    (define-key map (kbd "C-c a l") #'agent-doc-sync)
    (define-key map (kbd "C-c a m") #'agent-doc-commit)
    (define-key map (kbd "C-c a d") #'agent-doc-diff)
    (define-key map (kbd "C-M-S-a") #'agent-doc-submit)
    (define-key map (kbd "C-M-S-c") #'agent-doc-claim)
    (define-key map (kbd "C-M-S-l") #'agent-doc-sync)
    map)
  "Keymap of `agent-doc-mode'.")

;;;###autoload
(define-minor-mode agent-doc-mode
  "agent-doc keys and mode-line state in a markdown buffer."
  :lighter (:eval (agent-doc-mode-line))
  :keymap agent-doc-mode-map)

;;;; Registration with eglot and auto-start

(defun agent-doc--server-contact (&optional _interactive)
  "The eglot contact of `agent-doc-lsp': `agent-doc-server-command'."
  agent-doc-server-command)

(defconst agent-doc--server-modes
  '((markdown-mode :language-id "markdown")
    (gfm-mode :language-id "markdown")
    (agent-doc-markdown-mode :language-id "markdown"))
  "Major modes served by `agent-doc-lsp', all with language id markdown.")

(defun agent-doc--register-server ()
  "Put `agent-doc-lsp' FIRST in `eglot-server-programs' (first match wins).
Eglot ships its own markdown entry (marksman); ours must come before it.
Older entries of ours are removed, so calling this again keeps one."
  (setq eglot-server-programs
        (cons (cons agent-doc--server-modes #'agent-doc--server-contact)
              (cl-remove-if (lambda (entry)
                              (eq (cdr-safe entry) #'agent-doc--server-contact))
                            eglot-server-programs))))

(defun agent-doc--register-md-fallback ()
  "Open *.md in `agent-doc-markdown-mode' when nothing else claims them.
Appended to `auto-mode-alist', so markdown-mode's own entry (installed now
or later) wins whenever markdown-mode is there."
  (add-to-list 'auto-mode-alist '("\\.md\\'" . agent-doc-markdown-mode) t))

(defun agent-doc--maybe-start-eglot ()
  "Mode hook: start eglot in a session document (`agent-doc-auto-start')."
  (when (and agent-doc-auto-start (agent-doc--session-buffer-p (current-buffer)))
    (eglot-ensure)))

;;;###autoload
(defun agent-doc-setup ()
  "Register `agent-doc-lsp' with eglot for markdown; install hooks.
Our entry goes first in `eglot-server-programs'; session documents start
eglot by themselves.  Server-initiated edits are applied without
confirmation: that is how the agent's answers land in the buffer."
  (agent-doc--register-md-fallback)
  (agent-doc--register-server)
  (setq eglot-confirm-server-initiated-edits nil)
  (advice-add 'eglot--apply-text-edits :around #'agent-doc--apply-text-edits)
  ;; A crashed server is restarted by eglot (and its buffers re-opened with
  ;; their unsaved text) when the connection lasted this long: bounded retries.
  (when (null eglot-autoreconnect) (setq eglot-autoreconnect 3))
  (dolist (hook '(markdown-mode-hook gfm-mode-hook agent-doc-markdown-mode-hook))
    (add-hook hook #'agent-doc-mode)
    (add-hook hook #'agent-doc--maybe-start-eglot t))
  (add-hook 'window-configuration-change-hook #'agent-doc--window-change)
  ;; The first sync runs once the server manages a buffer, not at the next
  ;; window change (such as opening *Help*).
  (add-hook 'eglot-managed-mode-hook #'agent-doc--window-change))

(provide 'agent-doc)
(require 'agent-doc-state nil t)  ; sessions, turn diff/revert (issue 20)
(require 'agent-doc-acp nil t)    ; ACP agents: ask, stop, one undo step (issue 19)
(require 'agent-doc-share nil t)  ; presence in shared documents (issue 29)
;;; agent-doc.el ends here
